import { toRanges } from '../../policy/common.js';
import type { LifecycleCriteria } from '../lifecycle/criteria.js';
import { defineStrategy } from '../types.js';
import { RemoveFailedPodsArgsSchema, type RemoveFailedPodsArgs } from './schema.js';

/** Upstream delegates to PodLifeTime with phase Failed required; so does this mapping. */
export function removeFailedPodsCriteria(a: RemoveFailedPodsArgs): LifecycleCriteria {
  return {
    namespaces: a.namespaces,
    labelSelector: a.labelSelector,
    phases: ['Failed'],
    ownerKinds: a.excludeOwnerKinds?.length ? { exclude: a.excludeOwnerKinds } : undefined,
    minAgeSeconds: a.minPodLifetimeSeconds,
    states: a.reasons,
    statesMatchPhase: false,
    exitCodes: a.exitCodes ? toRanges(a.exitCodes) : undefined,
    includingInitContainers: a.includingInitContainers,
    includingEphemeralContainers: false,
  };
}

/** Failed pods, optionally only with given reasons or exit codes; oldest first. */
export const RemoveFailedPods = defineStrategy({
  name: 'RemoveFailedPods',
  extensionPoint: 'deschedule',
  schema: RemoveFailedPodsArgsSchema,
  criteria: removeFailedPodsCriteria,
  order: 'oldest',
});
