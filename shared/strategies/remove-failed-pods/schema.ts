import { z } from 'zod';
import { ExitCodeSchema, NamespacesSchema, SecondsSchema } from '../../policy/common.js';
import { LabelSelectorSchema } from '../../policy/label-selector.js';

// RemoveFailedPods' arguments as of descheduler v0.36.

export const RemoveFailedPodsArgsSchema = z.strictObject({
  /** Pod status reasons and container waiting/terminated reasons; any one matches. */
  reasons: z.array(z.string().min(1)).optional(),
  /** Containers' exit codes, or ranges such as "128-255"; any one matches. */
  exitCodes: z.array(ExitCodeSchema).optional(),
  /** Pods whose owner is of one of these kinds are left alone. */
  excludeOwnerKinds: z.array(z.string().min(1)).optional(),
  /** Only pods at least this old (seconds since creation). */
  minPodLifetimeSeconds: SecondsSchema.default(3600),
  /** Init containers' reasons and exit codes count too. */
  includingInitContainers: z.boolean().default(false),
  namespaces: NamespacesSchema.optional(),
  labelSelector: LabelSelectorSchema.optional(),
});

export type RemoveFailedPodsArgs = z.output<typeof RemoveFailedPodsArgsSchema>;
