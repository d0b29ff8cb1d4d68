import { z } from 'zod';
import { NamespacesSchema } from '../../policy/common.js';
import { LabelSelectorSchema } from '../../policy/label-selector.js';

// PodTTL's arguments: kube-tidy's own strategy (the descheduler has no such plugin).

/** Where a pod's TTL may be written: Kyverno's label, or kube-janitor's two annotations. */
export const TTL_SOURCES = ['kyverno', 'janitor'] as const;
export type TtlSource = (typeof TTL_SOURCES)[number];

export const PodTTLArgsSchema = z.strictObject({
  /** Which conventions to honour; both unless narrowed. */
  sources: z
    .array(z.enum(TTL_SOURCES))
    .min(1)
    .refine((s) => new Set(s).size === s.length, { message: 'a source is listed twice' })
    .default([...TTL_SOURCES]),
  namespaces: NamespacesSchema.optional(),
  labelSelector: LabelSelectorSchema.optional(),
});

export type PodTTLArgs = z.output<typeof PodTTLArgsSchema>;
