import type { z } from 'zod';
import type { PodMatcher } from './lifecycle/matcher.js';

/** A strategy as the registry lists it: its arguments' schema and how to compile them. */
export interface StrategyDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  /** Which descheduler extension point it belongs to. */
  extensionPoint: 'deschedule';
  schema: S;
  compile(args: z.output<S>): PodMatcher;
}

export function defineStrategy<S extends z.ZodType>(def: StrategyDefinition<S>): StrategyDefinition<S> {
  return def;
}
