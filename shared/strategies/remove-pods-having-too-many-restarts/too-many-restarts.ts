import type { LifecycleCriteria } from '../lifecycle/criteria.js';
import { defineStrategy } from '../types.js';
import { RemovePodsHavingTooManyRestartsArgsSchema, type RemovePodsHavingTooManyRestartsArgs } from './schema.js';

export function tooManyRestartsCriteria(a: RemovePodsHavingTooManyRestartsArgs): LifecycleCriteria {
  return {
    namespaces: a.namespaces,
    labelSelector: a.labelSelector,
    minRestarts: a.podRestartThreshold,
    states: a.states,
    includingInitContainers: a.includingInitContainers,
    includingEphemeralContainers: false,
  };
}

/**
 * Pods whose containers restarted at least the threshold; the most restarted first
 * (upstream keeps list order; worst first makes limits spend evictions where they help).
 */
export const RemovePodsHavingTooManyRestarts = defineStrategy({
  name: 'RemovePodsHavingTooManyRestarts',
  extensionPoint: 'deschedule',
  schema: RemovePodsHavingTooManyRestartsArgsSchema,
  criteria: tooManyRestartsCriteria,
  order: 'most-restarts',
});
