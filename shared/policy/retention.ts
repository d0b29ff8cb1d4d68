// kube-tidy's "keep the last N per owner", beside the brakes in the top-level `kubeTidy`
// section of the DeschedulerPolicy file (the descheduler ignores the section: brakes-schema.ts).
//
//   kubeTidy:
//     retention:
//       - strategies: [PodLifeTime]   # the strategy runs it applies to (absent: every one)
//         profiles: [batch]           # and the profiles (absent: every one)
//         failed: 3                   # keep the 3 newest Failed pods of each controller owner
//         succeeded: 1                # and the newest Succeeded one
//
// A run takes the first rule that names it (or names nothing): rules are read in order, as
// the profiles are. What "owner" and "newest" mean is the core's (selection/retention.ts).
import { z } from 'zod';

/** Names as the descheduler's profiles and plugins are written: checked against the policy in load.ts. */
const Names = z.array(z.string().min(1)).min(1).max(32);

/** How many to keep: up to 1000 (a group larger than that is what a sweep's page holds, not a history). */
const Count = z.number().int().nonnegative().max(1000);

export const RetentionRuleSchema = z
  .strictObject({
    /** The strategies the rule applies to; absent: every one. */
    strategies: Names.optional(),
    /** The profiles the rule applies to; absent: every one. */
    profiles: Names.optional(),
    /** The newest Failed pods of each owner left alone; absent: the strategy removes every Failed pod it selects. */
    failed: Count.optional(),
    /** The same for Succeeded pods. */
    succeeded: Count.optional(),
  })
  .refine((r) => r.failed !== undefined || r.succeeded !== undefined, { message: 'a retention rule keeps something: set failed, succeeded or both' });

export const RetentionSchema = z.array(RetentionRuleSchema).max(16);

export type RetentionRule = z.output<typeof RetentionRuleSchema>;
