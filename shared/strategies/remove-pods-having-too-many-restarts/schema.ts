import { z } from 'zod';
import { NamespacesSchema } from '../../policy/common.js';
import { LabelSelectorSchema } from '../../policy/label-selector.js';

// RemovePodsHavingTooManyRestarts' arguments as of descheduler v0.36.

export const RemovePodsHavingTooManyRestartsArgsSchema = z.strictObject({
  podRestartThreshold: z.number().int().min(1),
  includingInitContainers: z.boolean().default(false),
  states: z.array(z.enum(['Running', 'CrashLoopBackOff'])).optional(),
  namespaces: NamespacesSchema.optional(),
  labelSelector: LabelSelectorSchema.optional(),
});

export type RemovePodsHavingTooManyRestartsArgs = z.output<typeof RemovePodsHavingTooManyRestartsArgsSchema>;
