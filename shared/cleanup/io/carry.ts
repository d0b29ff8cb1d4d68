// A sweep's plan handed from one tick to the next in the same instance (issue 27): a pass cut
// by its time budget would otherwise leave the rest to the next tick, which lists every pod of
// the cluster again to find what this one had already decided (at 150,000 pods, 6-7 s per tick
// to find a few hundred). When the decisions rest on the pods alone (selection/early.ts says when),
// the next tick writes what is carried, each write tied to the pod as it was listed (uid and
// resourceVersion preconditions: a pod that changed since is answered `stale`, not removed),
// and lists again once nothing is carried. Only in memory: another instance, a restart or a
// new policy lists as before, and that costs one LIST, never a wrong write.
import type { RemovalTarget } from '../../kube/evict-only.js';
import type { Decision } from '../../selection/decision.js';
import type { Policy } from '../../policy/policy.js';

/** A decision and the pod as it was listed when it was made. */
export interface CarriedWrite {
  decision: Decision;
  target: RemovalTarget;
}

/**
 * A carried plan older than this is dropped and the next tick lists: a schedule that ticks
 * rarely sees the cluster afresh rather than a plan from long ago (with events and the due list
 * in between, it has little to find).
 */
export const CARRY_MAX_MS = 10 * 60_000;

export interface Carried {
  writes: CarriedWrite[];
  /** The continue token of the first page the last tick did not read (a pass reading in steps, selection/early.ts): the next tick goes on from there. */
  resume?: string;
  /** When its decisions were made (the listing they came from): its age counts from there, across ticks. */
  at: number;
}

export class Carry {
  private held: (Carried & { policy: Policy; dryRun: boolean }) | undefined;

  /** What the last pass of this very policy (the same loaded object: a reload is a new one) and dry-run mode left, if fresh; taken once. */
  take(policy: Policy, dryRun: boolean, now: number): Carried | undefined {
    const h = this.held;
    this.held = undefined;
    if (!h || h.policy !== policy || h.dryRun !== dryRun || now - h.at > CARRY_MAX_MS || (h.writes.length === 0 && !h.resume)) return undefined;
    return { writes: h.writes, at: h.at, ...(h.resume ? { resume: h.resume } : {}) };
  }

  /** Replaces whatever was held (nothing when there is nothing to write and no list to go on with). */
  hold(policy: Policy, dryRun: boolean, carried: Carried): void {
    this.held = carried.writes.length || carried.resume ? { ...carried, policy, dryRun } : undefined;
  }

  /** Pods held for the next tick. */
  get size(): number {
    return this.held?.writes.length ?? 0;
  }
}
