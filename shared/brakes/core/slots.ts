// The ledger's third kind of entry: concurrency. A counter (meters.ts) is a fact about a window
// and a hold (ledger.ts) a reservation an instance settles or loses when it expires; a **slot**
// is one unit of a concurrency meter ("at most N evacuations in flight in the cluster, M per
// node": EVACUATION_MAX_PER_CLUSTER, EVACUATION_MAX_PER_NODE), held by one evacuation (its pod's
// uid), not by an instance, and with no expiry: it is held while the evacuation is in flight
// and released at its end. Time cannot tell when a live migration ends (it takes minutes, an
// instance may die mid-way and another carries it on), the pod can: evacuation's tick mends the
// slots from the pods' Started state (evacuation/io/slots.ts), which is the authority on what is
// in flight; the ledger is its bookkeeping.
//
// A ledger rebuilt blind (ledger.ts `Blind`) lost what slots it held: they are unknown, never
// free, so no new slot is taken until a tick has written back the slots of the pods in flight
// (`slotsMended` at or after the rebuild). An entry carried from the previous release's store
// that could not be read there (evacuation/io/legacy-slots.ts) holds its slot on no known node.
import type { Blind, LedgerState, Slot } from './ledger.js';

export type { Slot, SlotEntry } from './ledger.js';

/** The two concurrency meters: evacuations in flight in the cluster, and from one node. */
export interface Limits {
  perCluster: number;
  perNode: number;
}

export type SlotAdmission = { ok: true; held: boolean } | { ok: false; why: string };

export const slotsOf = (state: LedgerState): Slot[] => Object.entries(state.slots ?? {}).map(([uid, e]) => ({ uid, ...e }));

/** The blind rebuild that made the slots unknown, while no tick has written them back since. */
export const slotsUnknown = (state: LedgerState): Blind | undefined =>
  state.blind !== undefined && (state.slotsMended ?? Number.NEGATIVE_INFINITY) < state.blind.at ? state.blind : undefined;

/** Whether a pod may take a slot among `slots` (idempotent: one it holds is kept). */
export function admitSlot(slots: readonly Slot[], uid: string, node: string, limits: Limits): SlotAdmission {
  // A retry, or a second instance on the same pod: it already holds one.
  if (slots.some((s) => s.uid === uid)) return { ok: true, held: true };
  if (slots.length >= limits.perCluster) return { ok: false, why: `${slots.length} evacuations in flight in the cluster (limit ${limits.perCluster})` };
  const onNode = slots.filter((s) => s.node === node && s.unreadable === undefined).length;
  if (onNode >= limits.perNode) return { ok: false, why: `${onNode} evacuations in flight from node ${node} (limit ${limits.perNode})` };
  return { ok: true, held: false };
}

/** Why no slot can be taken in a ledger whose slots are unknown (said in the pod's answer). */
export const unknownWhy = (b: Blind): string =>
  `the brakes' ledger was ${b.why} and rebuilt at ${new Date(b.at).toISOString()}: the evacuations in flight are unknown until a tick writes their slots again from the pods' Started state`;

/** The ledger with `slots` taken (set under their uid). */
export function takeSlots(state: LedgerState, slots: readonly Slot[]): LedgerState {
  const next = { ...(state.slots ?? {}) };
  for (const { uid, ...entry } of slots) next[uid] = entry;
  return { ...state, slots: next };
}

/** The ledger with the slots of `uids` released (none held is fine). */
export function releaseSlots(state: LedgerState, uids: Iterable<string>): LedgerState {
  const next = { ...(state.slots ?? {}) };
  for (const uid of uids) delete next[uid];
  return { ...state, slots: next };
}

/** A tick's mending: what it frees and writes back, and from `now` on the slots are known again. */
export function mendSlots(state: LedgerState, free: Iterable<string>, restore: readonly Slot[], now: number): LedgerState {
  return { ...takeSlots(releaseSlots(state, free), restore), slotsMended: now };
}
