import { z } from 'zod';
import { ExitCodeSchema, NamespacesSchema, SecondsSchema } from '../../policy/common.js';
import { LabelSelectorSchema } from '../../policy/label-selector.js';

// RemoveFailedPods' arguments as of descheduler v0.36.

export const RemoveFailedPodsArgsSchema = z.strictObject({
  /** Pod status reasons and container waiting/terminated reasons; any one matches. */
  reasons: z.array(z.string().min(1)).optional(),
  exitCodes: z.array(ExitCodeSchema).optional(),
  excludeOwnerKinds: z.array(z.string().min(1)).optional(),
  minPodLifetimeSeconds: SecondsSchema.default(3600),
  includingInitContainers: z.boolean().default(false),
  namespaces: NamespacesSchema.optional(),
  labelSelector: LabelSelectorSchema.optional(),
});

export type RemoveFailedPodsArgs = z.output<typeof RemoveFailedPodsArgsSchema>;
