import type { DefaultEvictorArgs } from '../evictor/schema.js';
import type { EvictionLimits } from '../evictor/limits.js';
import type { BrakesPolicy } from './brakes-schema.js';
import type { ObjectRule } from './objects-schema.js';
import type { RetentionRule } from './retention.js';
import type { TtlRule } from './ttl-schema.js';
import type { StrategyName } from '../strategies/registry.js';

/** A validated policy with every default filled in: what the core runs. */
export interface Policy {
  nodeSelector?: string;
  limits: EvictionLimits;
  /** kube-tidy's brakes across passes and events (policy/brakes-schema.ts); absent: DEFAULT_BRAKES. */
  brakes?: BrakesPolicy;
  /** kube-tidy's "keep the newest N per owner" (policy/retention.ts, selection/retention.ts); absent: none. */
  retention?: RetentionRule[];
  /** kube-tidy's cleanup beyond pods (policy/objects-schema.ts, shared/objects); absent: none. */
  objects?: ObjectRule[];
  /** kube-tidy's TTL on any kind (policy/ttl-schema.ts, shared/ttl); absent: none. */
  ttl?: TtlRule[];
  gracePeriodSeconds?: number;
  profiles: Profile[];
}

export interface Profile {
  name: string;
  evictor: DefaultEvictorArgs;
  /** In the order the profile enables them: the order they act in. */
  strategies: StrategyConfig[];
}

export interface StrategyConfig {
  name: StrategyName;
  /** The strategy schema's output (defaults filled). */
  args: unknown;
}

export interface LoadedPolicy {
  policy: Policy;
  warnings: string[];
}
