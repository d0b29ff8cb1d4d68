import type { Pod } from '../../model/objects.js';
import type { LifecycleCriteria } from '../lifecycle/criteria.js';
import { compileCriteria, type PodMatcher } from '../lifecycle/matcher.js';
import type { StrategyDefinition } from '../types.js';
import { expiryOf } from './expiry.js';
import { PodTTLArgsSchema, type PodTTLArgs } from './schema.js';

/** PodTTL's matcher, with what decide needs to report a pod it addresses but will not take. */
export interface PodTTLMatcher extends PodMatcher {
  /**
   * Why a pod the strategy's scope covers is kept although it carries a TTL: a value it cannot
   * read. Undefined for every other pod (out of scope, no TTL, a readable one).
   */
  keptBecause(pod: Pod, now: number): string | undefined;
}

/** The scope every strategy shares (namespaces, labelSelector); the TTL itself is not a lifecycle criterion. */
export function podTTLCriteria(a: PodTTLArgs): LifecycleCriteria {
  return { namespaces: a.namespaces, labelSelector: a.labelSelector, includingInitContainers: false, includingEphemeralContainers: false };
}

export function compilePodTTL(a: PodTTLArgs): PodTTLMatcher {
  const scope = compileCriteria(podTTLCriteria(a), 'oldest');
  const sources = new Set(a.sources);
  return {
    matches(pod, now) {
      // The TTL first: most pods carry none, and that is two or three key lookups.
      const e = expiryOf(pod, sources);
      return e.kind === 'at' && now >= e.at && scope.matches(pod, now);
    },
    explain(pod) {
      const e = expiryOf(pod, sources);
      return e.kind === 'at' ? `expired at ${new Date(e.at).toISOString()}, from ${e.source}` : 'no TTL';
    },
    // The earliest expiry first: the pod that has outstayed its TTL longest goes first.
    sortKey(pod) {
      const e = expiryOf(pod, sources);
      return e.kind === 'at' ? e.at : Number.NaN;
    },
    // The expiry instant itself: what lets the act-at-eligibility mechanism act on a TTL at its time.
    readyAt(pod, now) {
      if (scope.readyAt(pod, now) === undefined) return undefined;
      const e = expiryOf(pod, sources);
      return e.kind === 'at' ? e.at : undefined;
    },
    keptBecause(pod, now) {
      const e = expiryOf(pod, sources);
      return e.kind === 'malformed' && scope.matches(pod, now) ? `unreadable TTL, never removed by it: ${e.reason}` : undefined;
    },
  };
}

/**
 * Pods whose Kyverno TTL label or kube-janitor annotations say they have expired; earliest
 * expiry first. kube-tidy's own strategy: the descheduler has no plugin of this name, so a
 * policy enabling it is for kube-tidy alone.
 */
export const PodTTL: StrategyDefinition<typeof PodTTLArgsSchema> = {
  name: 'PodTTL',
  extensionPoint: 'deschedule',
  schema: PodTTLArgsSchema,
  criteria: podTTLCriteria,
  // Unused by compile (its order is the expiry's, above); 'oldest' is the nearest of the declared orders.
  order: 'oldest',
  compile: compilePodTTL,
};
