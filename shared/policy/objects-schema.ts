// Cleanup beyond pods (issue 38): finished Jobs, unused PersistentVolumeClaims and the owners
// of finished Kueue Workloads, in the `kubeTidy` section of the same policy file (the
// descheduler ignores it). Same shape as the pod rules: the kind, the condition its owning
// controller writes and how long it has held, namespaces and a label selector, keep the last N
// per owner. Report first: a rule removes nothing unless it says `mode: delete`.
//
//   kubeTidy:
//     objects:
//       - name: finished-jobs             # names its reports, Events and metrics
//         kind: Job                       # conditions default: Complete or Failed, status True
//         minAge: 24h                     # since the condition's lastTransitionTime
//         keepLast: 2                     # the newest 2 of each owner stay
//         mode: delete                    # default report: OpenReports and CloudEvents only
//       - name: unused-claims
//         kind: PersistentVolumeClaim     # only the API server's Unused/NoPodsUsingPVC (KEP-5541)
//         minAge: 168h
//         namespaces: {include: [scratch]}
//         mode: delete
//         reclaimPolicy: [Delete]         # the bound volume's policies acknowledged (needed to delete)
import { z } from 'zod';
import { NamespacesSchema } from './common.js';
import { parseGoDuration } from './duration.js';
import { LabelSelectorSchema } from './label-selector.js';

export const OBJECT_KINDS = ['Job', 'PersistentVolumeClaim', 'Workload'] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

/** What each kind's owning controller writes when it is done with the object. */
export const DEFAULT_CONDITIONS: Record<ObjectKind, ObjectCondition[]> = {
  // The Job controller: Complete or Failed, True (batch/v1 JobConditionType).
  Job: [
    { type: 'Complete', status: 'True' },
    { type: 'Failed', status: 'True' },
  ],
  // The PVC protection controller (KEP-5541): no non-terminal pod uses the claim.
  PersistentVolumeClaim: [{ type: 'Unused', status: 'True', reason: 'NoPodsUsingPVC' }],
  // Kueue's Workload controller: the workload finished (succeeded or failed).
  Workload: [{ type: 'Finished', status: 'True' }],
};

const MAX_AGE_MS = 10 * 365 * 24 * 3600 * 1000;
const Age = z.string().transform((s, ctx) => {
  const ms = parseGoDuration(s);
  if (ms === undefined || ms < 0 || ms > MAX_AGE_MS || ms % 1000 !== 0) {
    ctx.addIssue({ code: 'custom', message: `got ${JSON.stringify(s)}, expected a Go duration of whole seconds such as "0s", "90m" or "168h"` });
    return z.NEVER;
  }
  return ms;
});

const ConditionSchema = z.strictObject({
  /** The condition's type as the owning controller writes it (status.conditions[].type). */
  type: z.string().min(1).max(316),
  status: z.enum(['True', 'False', 'Unknown']).default('True'),
  /** When given, the condition's reason must be this too. */
  reason: z.string().min(1).max(1024).optional(),
});
export type ObjectCondition = z.output<typeof ConditionSchema>;

export const RULE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export const ObjectRuleSchema = z
  .strictObject({
    /** Names the rule in reports, Events, CloudEvents and metrics (a DNS label). */
    name: z.string().regex(RULE_NAME, 'a DNS label: lower case letters, digits and "-", at most 63'),
    /** Job (batch/v1), PersistentVolumeClaim (v1) or Workload (kueue.x-k8s.io: its controller owner is what goes). */
    kind: z.enum(OBJECT_KINDS),
    /** report (default): results and CloudEvents, nothing removed; delete: removed, said the same way. */
    mode: z.enum(['report', 'delete']).default('report'),
    /** Any one matches; absent: what the kind's controller writes when done (DEFAULT_CONDITIONS). */
    conditions: z.array(ConditionSchema).min(1).max(8).optional(),
    /** How long the condition has held (since its lastTransitionTime): required, a cleanup rule says when. */
    minAge: Age,
    namespaces: NamespacesSchema.optional(),
    labelSelector: LabelSelectorSchema.optional(),
    /** The newest N matching objects of each controller owner stay (by the condition's time). */
    keepLast: z.number().int().nonnegative().max(1000).optional(),
    /** PersistentVolumeClaim, mode delete: the bound volume's reclaim policies the user accepts (Delete loses the data). */
    reclaimPolicy: z
      .array(z.enum(['Delete', 'Retain', 'Recycle']))
      .min(1)
      .optional(),
  })
  .superRefine((r, ctx) => {
    if (r.kind !== 'PersistentVolumeClaim') {
      if (r.reclaimPolicy) ctx.addIssue({ code: 'custom', path: ['reclaimPolicy'], message: 'only for kind PersistentVolumeClaim' });
      return;
    }
    // Never inferred by kube-tidy: the API server's own condition or nothing (KEP-5541).
    const only = DEFAULT_CONDITIONS.PersistentVolumeClaim[0]!;
    if (r.conditions && !r.conditions.every((c) => c.type === only.type && c.status === only.status && c.reason === only.reason))
      ctx.addIssue({
        code: 'custom',
        path: ['conditions'],
        message: 'a claim is selected only by the condition Unused, True, NoPodsUsingPVC the API server writes: leave conditions out',
      });
    if (r.mode === 'delete' && !r.reclaimPolicy)
      ctx.addIssue({
        code: 'custom',
        path: ['reclaimPolicy'],
        message: "deleting claims needs the bound volumes' reclaim policies you accept, e.g. [Delete] (the data goes with the volume) or [Retain]",
      });
  });

export type ObjectRule = z.output<typeof ObjectRuleSchema>;

/** A list of rules whose names are each used once (they name reports, Events and metrics). */
export function uniqueNames(rules: readonly { name: string }[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  rules.forEach((r, i) => {
    if (seen.has(r.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate rule name "${r.name}"` });
    seen.add(r.name);
  });
}

export const ObjectRulesSchema = z.array(ObjectRuleSchema).max(32).superRefine(uniqueNames);

/** The conditions a rule selects by: its own, or its kind's. */
export const conditionsOf = (r: Pick<ObjectRule, 'kind' | 'conditions'>): readonly ObjectCondition[] => r.conditions ?? DEFAULT_CONDITIONS[r.kind];
