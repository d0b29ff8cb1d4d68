import type { NamespacedId } from '../model/identity.js';

/** What the core decided for one pod (its resourceVersion: the copy decided on); the functions carry it out. */
export interface Decision extends NamespacedId {
  node?: string;
  profile: string;
  strategy: string;
  /** `delete` for Succeeded/Failed pods (nothing left to disrupt); `evict` through the Eviction API otherwise. */
  action: 'delete' | 'evict';
  reason: string;
}

/** A pod a strategy selected but that is left alone, and why: for reports and the demo. */
export interface Kept extends NamespacedId {
  profile: string;
  strategy: string;
  reason: string;
}

/** A pod that a time-based rule will select later, and when (epoch ms), if nothing else changes. */
export interface Eligible {
  namespace: string;
  name: string;
  uid: string;
  profile: string;
  strategy: string;
  at: number;
}

export interface Plan {
  decisions: Decision[];
  /**
   * Where each decision (same index) stands in the policy's order: its strategy run (profiles
   * in order, strategies in the order each enables them) and its sort key in that strategy.
   * What merging the plans of a pass's pages needs (across-pages.ts). Two arrays of numbers,
   * not an object per decision: decide builds tens of thousands of decisions per call.
   */
  order: { run: number[]; key: number[] };
  kept: Kept[];
  /** Pods looked at, once each whatever the number of strategies. */
  evaluated: number;
  /** With DecideOptions.eligibleAt: the pods not taken now that time alone will bring in. */
  eligible?: Eligible[];
}
