// Limits on evacuations in flight, per cluster and per node (KubeVirt's own defaults for
// migrations are 5 and 2): the concurrency meters of the brakes' one ledger, whose slots are
// held per evacuation (brakes/core/slots.ts: the slot, and the rule that admits one). What is
// evacuation's own is when a slot nobody holds may be given back: the machine's Started state
// says what is in flight. evacuation/io/slot-store.ts does the reads and conditional writes.
import type { Slot } from '../../brakes/core/slots.js';

export { admitSlot as admit, type Limits, type Slot, type SlotEntry, type SlotAdmission as Admission } from '../../brakes/core/slots.js';

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
