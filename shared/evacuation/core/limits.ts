// Limits on evacuations in flight, per cluster and per node (KubeVirt's own defaults for
// migrations are 5 and 2). The slots live in one slot store object that is only ever written with
// its resourceVersion as precondition, so concurrent instances cannot both take the last slot.
// These are the pure rules; slot-store.ts does the reads and conditional writes.

export interface Limits {
  perCluster: number;
  perNode: number;
}

export interface Slot {
  uid: string;
  /** namespace/name, for people reading the slot store. */
  pod: string;
  node: string;
  /** When taken (ms): a slot of a pod that never got its Started state is dropped after a grace. */
  at: number;
  /**
   * Set when the slot store's entry for the pod could not be read (why): the slot is held, on no
   * known node (only the cluster-wide limit counts it), taken at an unknown time (`at` 0).
   */
  unreadable?: string;
  /** The attempt that took it: the end told when the slot is given back says which attempt ended (the pod may be gone). */
  attempt?: number;
}

export type Admission = { ok: true; held: boolean } | { ok: false; why: string };

export function admit(slots: readonly Slot[], uid: string, node: string, limits: Limits): Admission {
  // Idempotent: the pod (a retry, or a second instance on the same pod) already holds one.
  if (slots.some((s) => s.uid === uid)) return { ok: true, held: true };
  if (slots.length >= limits.perCluster) return { ok: false, why: `${slots.length} evacuations in flight in the cluster (limit ${limits.perCluster})` };
  const onNode = slots.filter((s) => s.node === node && s.unreadable === undefined).length;
  if (onNode >= limits.perNode) return { ok: false, why: `${onNode} evacuations in flight from node ${node} (limit ${limits.perNode})` };
  return { ok: true, held: false };
}

/**
 * Slots nobody holds any more: the pod is not in flight (its evacuation ended, or it is gone)
 * and the slot is older than the grace (a slot is taken just before the pod's Started state
 * is written, so a young slot without it may be an instance between the two writes). An
 * unreadable slot's age is unknown: it is stale as soon as its pod is not in flight (should an
 * instance write Started after that, the tick restores the slot from the pod).
 */
export function stale(slots: readonly Slot[], inFlight: ReadonlySet<string>, now: number, graceMs: number): Slot[] {
  return slots.filter((s) => !inFlight.has(s.uid) && now - s.at > graceMs);
}
