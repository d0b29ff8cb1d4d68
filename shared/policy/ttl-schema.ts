// TTL on any kind (issue 47): the TTL values people already write for Kyverno and kube-janitor,
// honoured on the kinds a rule names, in the `kubeTidy` section beside `objects`. Report first:
// a rule removes nothing unless it says `mode: delete`.
//
//   kubeTidy:
//     ttl:
//       - name: preview-envs                          # names its reports, Events and metrics
//         kinds:
//           - {group: "", version: v1, kind: Namespace}
//           - {group: apps, version: v1, kind: Deployment}
//         sources: [cleanup.kyverno.io/ttl, janitor/ttl, janitor/expires]   # the default: all three
//         labelSelector: {matchLabels: {env: preview}}
//         mode: delete                                # default report: OpenReports and CloudEvents only
//         propagationPolicy: Background               # the default, as the API server's for a Kyverno delete
import { z } from 'zod';
import { NamespacesSchema } from './common.js';
import { LabelSelectorSchema } from './label-selector.js';
import { RULE_NAME, uniqueNames } from './objects-schema.js';

/** Where a TTL may be written: Kyverno's label, kube-janitor's annotation (or label) and its absolute time. */
export const TTL_KEYS = ['cleanup.kyverno.io/ttl', 'janitor/ttl', 'janitor/expires'] as const;
export type TtlKey = (typeof TTL_KEYS)[number];

/** A kind as the API server serves it: the group (empty: the core group), the version and the Kind. */
export const GroupVersionKindSchema = z.strictObject({
  /** The API group: "" (the default) for the core group (Namespace, ConfigMap, Service), apps for Deployment. */
  group: z
    .string()
    .regex(/^(|[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)$/, 'a DNS subdomain such as apps or batch, or "" for the core group')
    .max(253)
    .default(''),
  /** The version the cluster serves it at (v1, v1beta2). */
  version: z.string().regex(/^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/, 'a Kubernetes API version such as v1 or v1beta2'),
  /** The Kind as the API server names it (Namespace, Deployment, ConfigMap). */
  kind: z.string().regex(/^[A-Z][A-Za-z0-9]{0,62}$/, 'a Kind as the API server names it, such as Namespace or Deployment'),
});
export type GroupVersionKind = z.output<typeof GroupVersionKindSchema>;

/** `group/version/Kind` (the core group as `v1/Kind`): how a kind is named in logs, reports and the RBAC. */
export const gvkName = (k: GroupVersionKind): string => `${k.group ? `${k.group}/` : ''}${k.version}/${k.kind}`;

export const TtlRuleSchema = z.strictObject({
  /** Names the rule in reports, Events, CloudEvents and metrics (a DNS label, unique among ttl and objects rules). */
  name: z.string().regex(RULE_NAME, 'a DNS label: lower case letters, digits and "-", at most 63'),
  /** The kinds it reads and may delete, namespaced or cluster-scoped (Namespace included). */
  kinds: z
    .array(GroupVersionKindSchema)
    .min(1)
    .max(32)
    .refine((ks) => new Set(ks.map(gvkName)).size === ks.length, 'each kind once'),
  /** The TTL values honoured (default all three); any other key on an object is not read. */
  sources: z
    .array(z.enum(TTL_KEYS))
    .min(1)
    .refine((s) => new Set(s).size === s.length, 'a source is listed twice')
    .default([...TTL_KEYS]),
  /** report (default): results and CloudEvents, nothing removed; delete: removed at expiry, said the same way. */
  mode: z.enum(['report', 'delete']).default('report'),
  /** How the API server deletes what the object owns; an object's own `cleanup.kyverno.io/propagation-policy` annotation wins, as in Kyverno. */
  propagationPolicy: z.enum(['Background', 'Foreground', 'Orphan']).default('Background'),
  /** Of a namespaced object, its namespace; of a Namespace, its own name. */
  namespaces: NamespacesSchema.optional(),
  labelSelector: LabelSelectorSchema.optional(),
});

export type TtlRule = z.output<typeof TtlRuleSchema>;

/** TTL on any kind: Kyverno's and kube-janitor's TTL values on the kinds a rule names. */
export const TtlRulesSchema = z.array(TtlRuleSchema).max(32).superRefine(uniqueNames);
