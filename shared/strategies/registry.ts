import { PodLifeTime } from './pod-lifetime/index.js';
import { PodTTL } from './pod-ttl/index.js';
import { RemoveFailedPods } from './remove-failed-pods/index.js';
import { RemovePodsHavingTooManyRestarts } from './remove-pods-having-too-many-restarts/index.js';
import type { StrategyDefinition } from './types.js';

/**
 * Every strategy kube-tidy runs, listed by hand: adding one is a compile-checked line here,
 * never a file that is discovered at run time.
 */
export const STRATEGIES = {
  PodLifeTime,
  RemoveFailedPods,
  RemovePodsHavingTooManyRestarts,
  PodTTL,
} as const satisfies Record<string, StrategyDefinition>;

export type StrategyName = keyof typeof STRATEGIES;

export const STRATEGY_NAMES = Object.keys(STRATEGIES) as StrategyName[];

export function isStrategyName(name: string): name is StrategyName {
  return Object.hasOwn(STRATEGIES, name);
}
