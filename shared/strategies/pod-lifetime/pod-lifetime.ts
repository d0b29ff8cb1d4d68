import { toRanges } from '../../policy/common.js';
import { defineStrategy } from '../types.js';
import { PodLifeTimeArgsSchema, type PodLifeTimeArgs } from './schema.js';
import type { LifecycleCriteria } from '../lifecycle/criteria.js';

export function podLifeTimeCriteria(a: PodLifeTimeArgs): LifecycleCriteria {
  return {
    namespaces: a.namespaces,
    labelSelector: a.labelSelector,
    ownerKinds: a.ownerKinds,
    olderThanSeconds: a.maxPodLifeTimeSeconds,
    states: a.states,
    conditions: a.conditions,
    exitCodes: a.exitCodes ? toRanges(a.exitCodes) : undefined,
    includingInitContainers: a.includingInitContainers,
    includingEphemeralContainers: a.includingEphemeralContainers,
  };
}

/** Pods past a lifetime, in given states, conditions or exit codes; oldest first. */
export const PodLifeTime = defineStrategy({
  name: 'PodLifeTime',
  extensionPoint: 'deschedule',
  schema: PodLifeTimeArgsSchema,
  criteria: podLifeTimeCriteria,
  order: 'oldest',
});
