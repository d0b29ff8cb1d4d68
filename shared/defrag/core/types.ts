import type { Node, Pod, PodDisruptionBudget } from '../../model/objects.js';
import type { EvictionLimits } from '../../evictor/limits.js';
import type { ObjectId } from '../../model/identity.js';

// The planner's input and output. Pods, nodes and budgets are the model's wire types
// (shared/model/objects.ts), the same the snapshot and the strategies read.

/** "May this pod be evicted at all": the evictor gate, or a stand-in in tests. */
export type MoveGate = (pod: Pod) => string | undefined;

export interface DefragInput {
  nodes: readonly Node[];
  pods: readonly Pod[];
  pdbs?: readonly PodDisruptionBudget[];
}

export interface DefragOptions {
  gate?: MoveGate;
  limits?: EvictionLimits;
  /** Nodes already being freed (cordoned by an earlier step): tried first, so a plan in progress continues. */
  preferTargets?: readonly string[];
  /** Make-room tries per pod that has no direct destination: bounds the search on large clusters. */
  makeRoomTries?: number;
}

/** Which pod a move is about: the identity type, with what a move always knows. */
export type PodRef = Required<Pick<ObjectId, 'namespace' | 'name' | 'uid'>>;

export interface Move {
  /** 1-based position in the plan: moves run in this order, one at a time. */
  step: number;
  pod: PodRef;
  owner: { kind: string; name: string; uid: string };
  from: string;
  /** Where the replacement is expected (the most allocated node it fits, as MostAllocated scores). */
  to: string;
  /** The node this move helps free. */
  frees: string;
  /**
   * A make-room move (the first half of a swap): `to` is elsewhere, and `reserveFor` names the
   * pod of the next move, which takes the spot this pod leaves on `from`. The spot is held
   * (the node cordoned) until this pod's replacement runs, so it cannot come back there.
   */
  reserveFor?: PodRef;
  reason: string;
}

export interface FreedNode {
  node: string;
  /** Steps of the moves that free it (including make-room moves on other nodes). */
  steps: number[];
  /** Pods that stay because they die with the node (DaemonSet, mirror/static). */
  staying: number;
}

export interface LowerBound {
  /** At least this many nodes must stay in use, whatever the moves. */
  nodes: number;
  /** Which constraint gives the bound, in words. */
  by: string;
}

export interface DefragPlan {
  moves: Move[];
  freed: FreedNode[];
  /** Occupied nodes that stay, each with the reason. */
  notFreed: { node: string; reason: string }[];
  /** Nodes running at least one pod that counts (not DaemonSet, not terminal). */
  occupied: number;
  lowerBound: LowerBound;
  /** occupied - lowerBound.nodes: no plan frees more. */
  maxFreeable: number;
  summary: string;
}
