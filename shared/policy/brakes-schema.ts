// kube-tidy's brakes, beside the descheduler's fields: a top-level `kubeTidy.brakes` section of
// the same DeschedulerPolicy file. The descheduler ignores an unknown top-level field (its
// decoder is not strict; docs/differences-from-descheduler.md), so one file still serves both tools.
//
//   kubeTidy:
//     brakes:
//       window: 15m            # the window of maxNoOfPodsToEvict* (default: the sweep interval)
//       rates:                 # at most `max` removals per `per`, in each scope
//         - {max: 30, per: 10m, scope: namespace}
//         - {max: 5, per: 1h, kinds: [PersistentVolumeClaim]}   # pods unless `kinds` says
//       abort:                 # a pass that would remove more than `percent` % of the pods it
//         - {percent: 30, scope: owner, minPods: 5}   # considered in a scope stops, and stays stopped
import { z } from 'zod';
import { parseGoDuration } from './duration.js';
import { OBJECT_KINDS, ObjectRulesSchema } from './objects-schema.js';
import { TtlRulesSchema } from './ttl-schema.js';
import { RetentionSchema } from './retention.js';

/** The generated sweep runs every 15 minutes (serverless.yml): one window is one descheduler cycle. */
export const DEFAULT_WINDOW_MS = 15 * 60 * 1000;
/** Windows are whole seconds from one second to a week: a counter older than that is noise. */
const MAX_WINDOW_MS = 7 * 24 * 3600 * 1000;

const Duration = z.string().transform((s, ctx) => {
  const ms = parseGoDuration(s);
  if (ms === undefined || ms < 1000 || ms > MAX_WINDOW_MS || ms % 1000 !== 0) {
    ctx.addIssue({ code: 'custom', message: `got ${JSON.stringify(s)}, expected a Go duration of whole seconds from 1s to 168h (e.g. "15m", "1h30m")` });
    return z.NEVER;
  }
  return ms;
});

export const BRAKE_SCOPES = ['cluster', 'namespace', 'owner'] as const;
/** What a removal removes: a pod (every family's), an object of cleanup beyond pods (objects-schema.ts), or any kind a TTL rule deletes (ttl-schema.ts). */
export const REMOVAL_KINDS = ['Pod', ...OBJECT_KINDS] as const;
/** A Kind by its name alone (Namespace, Deployment): a rate counts that kind's removals in any group. */
export type RemovalKind = string;
export type BrakeScope = (typeof BRAKE_SCOPES)[number];
const Scope = z.enum(BRAKE_SCOPES);

const RateSchema = z.strictObject({
  /** Removals allowed per window in each scope (0 stops every removal in it). */
  max: z.number().int().nonnegative(),
  /** The rate's window (Go duration). */
  per: Duration,
  /** Counted in the cluster, in each namespace, or per controller owner. */
  scope: Scope.default('cluster'),
  /**
   * What the rate counts (issue 38): pods by default. Each kind is counted on its own (a
   * scope per kind), so deleting finished Jobs never spends the pods' budget, nor the reverse.
   * Pod, Job, PersistentVolumeClaim, Workload, or a kind a ttl rule names (Namespace), by its name.
   */
  kinds: z
    .array(
      z
        .string()
        .regex(
          /^[A-Z][A-Za-z0-9]{0,62}$/,
          `a Kind as the API server names it: ${REMOVAL_KINDS.join(', ')}, or a kind a ttl rule names (Namespace, Deployment)`,
        ),
    )
    .min(1)
    .max(64)
    .refine((k) => new Set(k).size === k.length, 'each kind once')
    .default(['Pod']),
});

const AbortSchema = z.strictObject({
  /** More than this share of the pods a pass considered in one scope, and the pass stops. */
  percent: z.number().gt(0).lte(100),
  scope: Scope.default('cluster'),
  /** Scopes with fewer pods considered are not judged (a Job with one Failed pod is 100% of it). */
  minPods: z.number().int().nonnegative().default(0),
});

export const BrakesSchema = z.strictObject({
  /** The window maxNoOfPodsToEvict* hold over (Go duration, 1s to 168h; default the generated sweep interval). */
  window: Duration.default(DEFAULT_WINDOW_MS),
  /** At most `max` removals per `per`, in each scope. */
  rates: z.array(RateSchema).max(16).default([]),
  /** A pass that would remove more than `percent` of the pods it considered in a scope stops, and the scope stays stopped until a person resumes it. */
  abort: z.array(AbortSchema).max(8).default([]),
});

/** What the policy says of the brakes; `Brakes` (brakes/io/brakes.ts) is the process's ledger client that applies it. */
export type BrakesPolicy = z.output<typeof BrakesSchema>;
export type RateBudget = BrakesPolicy['rates'][number];
export type AbortRule = BrakesPolicy['abort'][number];

/** Brakes when the policy has no kubeTidy section: the descheduler's limits, per default window. */
export const DEFAULT_BRAKES: BrakesPolicy = { window: DEFAULT_WINDOW_MS, rates: [], abort: [] };

/** The whole `kubeTidy` section: the brakes, and how many pods of each owner to keep (retention.ts). */
export const KubeTidySectionSchema = z.strictObject({
  brakes: BrakesSchema.default(DEFAULT_BRAKES),
  retention: RetentionSchema.default([]),
  // Cleanup beyond pods (objects-schema.ts): Jobs, claims, Workloads.
  objects: ObjectRulesSchema.default([]),
  // TTL on any kind (ttl-schema.ts): Kyverno's and kube-janitor's TTL values on the kinds a rule names.
  ttl: TtlRulesSchema.default([]),
});
