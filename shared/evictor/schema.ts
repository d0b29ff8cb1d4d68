import { z } from 'zod';
import { LabelSelectorSchema } from '../policy/label-selector.js';
import { SelectorStringSchema } from '../policy/selector-string.js';
import { parseGoDuration } from '../policy/duration.js';

// DefaultEvictor's arguments (descheduler v0.36): the only definition of them here.

export const DEFAULT_PROTECTIONS = ['PodsWithLocalStorage', 'SystemCriticalPods', 'FailedBarePods', 'DaemonSetPods'] as const;
export const EXTRA_PROTECTIONS = ['PodsWithPVC', 'PodsWithoutPDB', 'PodsWithResourceClaims'] as const;
export type Protection = (typeof DEFAULT_PROTECTIONS)[number] | (typeof EXTRA_PROTECTIONS)[number];

const DEPRECATED_FLAGS = [
  'evictLocalStoragePods',
  'evictDaemonSetPods',
  'evictSystemCriticalPods',
  'ignorePvcPods',
  'ignorePodsWithoutPDB',
  'evictFailedBarePods',
] as const;

/** The descheduler refuses a protection listed twice. */
const unique = (list: readonly string[]) => new Set(list).size === list.length;

export const DefaultEvictorArgsSchema = z
  .strictObject({
    /** Only pods on the nodes this label selector (string form) matches. */
    nodeSelector: SelectorStringSchema,
    /** Only pods this selector matches. */
    labelSelector: LabelSelectorSchema.optional(),
    /** Only pods in namespaces this selector matches. */
    namespaceLabelSelector: LabelSelectorSchema.optional(),
    /** Pods at or above this priority (a value, or a PriorityClass by name) are protected, with the SystemCriticalPods protection on. */
    priorityThreshold: z
      .strictObject({
        // The descheduler refuses a threshold above system-critical (2,000,000,000) when it loads the policy.
        value: z.number().int().max(2_000_000_000, 'the priority threshold cannot be greater than 2000000000 (system-critical)').nullish(),
        name: z.string().nullish(),
      })
      .refine((p) => !(p.value != null && p.name), { message: 'only one of value/name may be set' })
      // Go's api.PriorityThreshold has no omitempty: sigs.k8s.io/yaml.Marshal writes the unset
      // half as `name: ""` or `value: null`, and the descheduler reads those as unset (its check
      // is Value != nil && len(Name) > 0); so does kube-tidy, dropping them.
      .transform((p): { value?: number; name?: string } => ({ ...(p.value != null ? { value: p.value } : {}), ...(p.name ? { name: p.name } : {}) }))
      .optional(),
    /** A pod is evicted only if it fits another node (cpu, memory, taints, node selectors, required node affinity). */
    nodeFit: z.boolean().default(false),
    /** Pods whose owner has fewer pods than this are protected. */
    minReplicas: z.number().int().nonnegative().default(0),
    /** Pods younger than this Go duration are protected. */
    minPodAge: z
      .string()
      .optional()
      .superRefine((s, ctx) => {
        if (s !== undefined && parseGoDuration(s) === undefined) {
          ctx.addIssue({ code: 'custom', message: `"${s}" is not a duration such as "30m" or "1h30m"` });
        }
      }),
    /** The annotation descheduler.alpha.kubernetes.io/prefer-no-eviction: Preferred (a preference) or Mandatory (the pod is never removed). */
    noEvictionPolicy: z.enum(['Preferred', 'Mandatory']).default('Preferred'),
    /** The protections in force: defaultDisabled turns default ones off, extraEnabled adds others. */
    podProtections: z
      .strictObject({
        defaultDisabled: z.array(z.enum(DEFAULT_PROTECTIONS)).refine(unique, 'contains duplicate entries').default([]),
        extraEnabled: z.array(z.enum(EXTRA_PROTECTIONS)).refine(unique, 'contains duplicate entries').default([]),
        config: z
          .strictObject({
            PodsWithPVC: z.strictObject({ protectedStorageClasses: z.array(z.strictObject({ name: z.string().min(1) })).default([]) }).optional(),
          })
          .optional(),
      })
      .default({ defaultDisabled: [], extraEnabled: [] }),
    /** Deprecated flags from before podProtections (only `false` may stand beside it). */
    evictLocalStoragePods: z.boolean().optional(),
    evictDaemonSetPods: z.boolean().optional(),
    evictSystemCriticalPods: z.boolean().optional(),
    ignorePvcPods: z.boolean().optional(),
    ignorePodsWithoutPDB: z.boolean().optional(),
    evictFailedBarePods: z.boolean().optional(),
  })
  .superRefine((args, ctx) => {
    const usesNew = args.podProtections.defaultDisabled.length > 0 || args.podProtections.extraEnabled.length > 0;
    // As the descheduler's validation: only a flag set to true conflicts (false is its default).
    const usedOld = DEPRECATED_FLAGS.filter((f) => args[f] === true);
    if (usesNew && usedOld.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: [usedOld[0]!],
        message: `deprecated field${usedOld.length > 1 ? 's' : ''} ${usedOld.join(', ')} cannot be used alongside podProtections.extraEnabled/defaultDisabled`,
      });
    }
  });

export type DefaultEvictorArgs = z.output<typeof DefaultEvictorArgsSchema>;

/** The protections in force, from the new list form or, when it is unused, the deprecated flags. */
export function effectiveProtections(args: DefaultEvictorArgs): Set<Protection> {
  const { defaultDisabled, extraEnabled } = args.podProtections;
  if (defaultDisabled.length > 0 || extraEnabled.length > 0) {
    const out = new Set<Protection>(DEFAULT_PROTECTIONS.filter((p) => !defaultDisabled.includes(p)));
    for (const p of extraEnabled) out.add(p);
    return out;
  }
  const out = new Set<Protection>();
  if (!args.evictLocalStoragePods) out.add('PodsWithLocalStorage');
  if (!args.evictDaemonSetPods) out.add('DaemonSetPods');
  if (!args.evictSystemCriticalPods) out.add('SystemCriticalPods');
  if (!args.evictFailedBarePods) out.add('FailedBarePods');
  if (args.ignorePvcPods) out.add('PodsWithPVC');
  if (args.ignorePodsWithoutPDB) out.add('PodsWithoutPDB');
  return out;
}
