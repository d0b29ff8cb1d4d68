import type { z } from 'zod';
import type { LifecycleCriteria } from './lifecycle/criteria.js';
import { compileCriteria, type PodMatcher } from './lifecycle/matcher.js';

/**
 * A strategy as the registry lists it: its arguments' schema, how they map onto the shared
 * lifecycle criteria, and the order it acts in. `compile` is derived, so the criteria are the
 * one thing both the matcher and the sweep's field selector read.
 */
export interface StrategySpec<S extends z.ZodType = z.ZodType> {
  name: string;
  /** Which descheduler extension point it belongs to. */
  extensionPoint: 'deschedule';
  schema: S;
  criteria(args: z.output<S>): LifecycleCriteria;
  order: 'oldest' | 'most-restarts';
}

export interface StrategyDefinition<S extends z.ZodType = z.ZodType> extends StrategySpec<S> {
  compile(args: z.output<S>): PodMatcher;
}

export function defineStrategy<S extends z.ZodType>(spec: StrategySpec<S>): StrategyDefinition<S> {
  return { ...spec, compile: (args) => compileCriteria(spec.criteria(args), spec.order) };
}
