import { z } from 'zod';
import { NamespacesSchema } from '../../policy/common.js';
import { LabelSelectorSchema } from '../../policy/label-selector.js';

// RemovePodsHavingTooManyRestarts' arguments as of descheduler v0.36.

export const RemovePodsHavingTooManyRestartsArgsSchema = z.strictObject({
  /** Pods whose containers restarted at least this many times in all are selected. */
  podRestartThreshold: z.number().int().min(1),
  /** Init containers' restarts count too. */
  includingInitContainers: z.boolean().default(false),
  /** Only pods in one of these states (the pod Running, or a container in CrashLoopBackOff). */
  states: z.array(z.enum(['Running', 'CrashLoopBackOff'])).optional(),
  namespaces: NamespacesSchema.optional(),
  labelSelector: LabelSelectorSchema.optional(),
});

export type RemovePodsHavingTooManyRestartsArgs = z.output<typeof RemovePodsHavingTooManyRestartsArgsSchema>;
