import { z } from 'zod';
import { SelectorStringSchema } from './selector-string.js';

// The DeschedulerPolicy envelope (descheduler/v1alpha2). Plugin arguments stay `unknown`
// here: each plugin's own schema validates them, so that a policy naming an unsupported
// plugin can still be reported (or skipped) by name.

// The PodLifeTime README writes `enabled: [{name: PodLifeTime}]`; the API type is a string
// list. Accept both so a policy copied from those docs works.
const PluginName = z.union([z.string().min(1), z.strictObject({ name: z.string().min(1) }).transform((o) => o.name)]);

// sigs.k8s.io/yaml.Marshal of the descheduler's own types (v1alpha2 PluginSet, whose lists
// have no omitempty) writes every extension point a profile leaves unused as
// `{enabled: null, disabled: null}`, and a profile without pluginConfig as `pluginConfig: null`
// (its e2e tests' policy ConfigMaps are written so). Go reads null as an empty list; so does
// kube-tidy.
const nullAsEmpty = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullable()
    .default([])
    .transform((v) => v ?? []);

const PluginSetSchema = z.strictObject({
  enabled: nullAsEmpty(PluginName),
  disabled: nullAsEmpty(PluginName),
});

const PluginsSchema = z
  .strictObject({
    presort: PluginSetSchema.optional(),
    sort: PluginSetSchema.optional(),
    deschedule: PluginSetSchema.optional(),
    balance: PluginSetSchema.optional(),
    filter: PluginSetSchema.optional(),
    preevictionfilter: PluginSetSchema.optional(),
    // The descheduler's docs write it camel-cased; accept both spellings.
    preEvictionFilter: PluginSetSchema.optional(),
  })
  .default({});

export const ProfileSchema = z.strictObject({
  name: z.string().min(1),
  /** Each plugin's arguments, by the plugin's name. */
  pluginConfig: nullAsEmpty(z.strictObject({ name: z.string().min(1), args: z.unknown().optional() })),
  /** The plugins each extension point enables (kube-tidy's strategies run at `deschedule`). */
  plugins: PluginsSchema,
});

const Count = z.number().int().nonnegative();

export const PolicyEnvelopeSchema = z.strictObject({
  apiVersion: z.literal('descheduler/v1alpha2'),
  kind: z.literal('DeschedulerPolicy'),
  /** Named profiles; every profile runs, each with the plugins it enables and their arguments. May be left out (or null, or empty) when kubeTidy.objects holds rules; a policy with neither is refused. */
  profiles: nullAsEmpty(ProfileSchema),
  /** Only pods on the nodes this label selector (string form) matches; a policy with it reads nodes. */
  nodeSelector: SelectorStringSchema,
  /** At most this many removals per node: per pass as per descheduler cycle, and per brakes window across every pass, event and instance. */
  maxNoOfPodsToEvictPerNode: Count.optional(),
  /** The same per namespace. */
  maxNoOfPodsToEvictPerNamespace: Count.optional(),
  /** The same in total. */
  maxNoOfPodsToEvictTotal: Count.optional(),
  /** The grace period each delete and eviction asks for (unset: the pod's own). */
  gracePeriodSeconds: Count.optional(),
  // kube-tidy's own section (policy/brakes-schema.ts), validated there with its field paths; the
  // descheduler ignores it.
  kubeTidy: z.unknown().optional(),
  // Descheduler settings with no meaning for kube-tidy: accepted so a policy file is shared
  // unchanged, and named in a warning.
  evictionFailureEventNotification: z.boolean().optional(),
  /** Accepted so one file serves both tools, and named in a warning: no meaning for kube-tidy. */
  metricsCollector: z.unknown().optional(),
  /** Accepted so one file serves both tools, and named in a warning: no meaning for kube-tidy. */
  metricsProviders: z.unknown().optional(),
  /** Accepted so one file serves both tools, and named in a warning: no meaning for kube-tidy. */
  prometheus: z.unknown().optional(),
});

export type PolicyEnvelope = z.output<typeof PolicyEnvelopeSchema>;
export type ProfileEnvelope = PolicyEnvelope['profiles'][number];

export const IGNORED_TOP_LEVEL = ['evictionFailureEventNotification', 'metricsCollector', 'metricsProviders', 'prometheus'] as const;
