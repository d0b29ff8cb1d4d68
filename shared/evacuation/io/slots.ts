// What a tick does with the slots once its pods are carried on: the pods' Started state is the
// authority on what is in flight, the ledger's slots only its bookkeeping. So the tick frees
// slots no evacuation holds (stale, or their pod gone), frees unreadable entries of pods it knows
// are not in flight, and writes again the slot of every pod in flight the ledger has no readable
// entry for (the ledger deleted, emptied or rebuilt blind, an entry lost, or dropped by a write of
// a release that did not know slots): without that, the limits would admit new evacuations as if
// those were not running. A ledger whose slots are unknown (rebuilt blind) admits none until a
// tick has done this. What it mended is said once, by the write that mended it: an error line,
// kube_tidy_state_unreadable_total, a Warning Event.
import { getPod } from '../../kube/get.js';
import { observeStateUnreadable } from '../../metrics/observe.js';
import { evacuationEndedGone } from '../../notify/families.js';
import { EVACUATION_ANNOTATIONS as ANNOTATIONS } from '../../model/keys.js';
import { stale, type Slot } from '../core/limits.js';
import type { EvacuationDeps } from './deps.js';
import { SLOT_STORE_NAME, type Settled } from './slot-store.js';

/** A slot younger than this may belong to an instance between taking it and writing Started. */
const SLOT_GRACE_MS = 60_000;

export interface TickView {
  scope: string | undefined;
  /** Every pod the tick listed (its scope), by uid: an unreadable entry of one of them can be judged. */
  listed: ReadonlySet<string>;
  /** Pods in flight (Started when listed, or started by this tick), by uid. */
  inFlight: ReadonlyMap<string, { namespace: string; name: string }>;
}

const split = (pod: string) => {
  const [namespace = '', name = ''] = pod.split('/');
  return { namespace, name };
};

/** Frees what no evacuation holds and restores what one does; answers how many it freed. */
export async function settleSlots(d: EvacuationDeps, v: TickView): Promise<number> {
  const { slots, unknown } = await d.slotStore.view();
  // A scoped tick only knows its namespace's pods; an unreadable entry names no namespace, so
  // only one whose pod the tick listed is its to judge (an unscoped tick judges every one).
  const mine = slots.filter((s) => !v.scope || (s.unreadable === undefined ? s.pod.startsWith(`${v.scope}/`) : v.listed.has(s.uid)));
  const free = stale(mine, new Set(v.inFlight.keys()), d.now(), SLOT_GRACE_MS);
  const gone = await goneOf(d, mine, v.inFlight, free);
  const restore = await toRestore(d, slots, v.inFlight);
  if (free.length === 0 && restore.length === 0 && !unknown) return 0;
  const done = await d.slotStore.settle((s) => free.some((f) => f.uid === s.uid), restore);
  // An evacuation whose pod went (the machine's rule: gone while Started is done) ends here, said once, by the release that freed it.
  for (const s of done.freed.filter((f) => gone.has(f.uid))) {
    evacuationEndedGone(d.notifier, {
      ...split(s.pod),
      uid: s.uid,
      ...(s.attempt ? { attempt: s.attempt } : {}),
      outcome: 'succeeded',
      why: 'the pod is gone',
      dryRun: d.writer.dryRun,
    });
  }
  if (!d.writer.dryRun) await mended(d, done, new Set(slots.filter((s) => s.unreadable !== undefined).map((s) => s.uid)));
  return free.length;
}

/**
 * Slots of pods that are gone (or replaced) are free at once, young ones too: no pod, no start to
 * come. Old ones are looked at as well: an evacuation that outlived the grace (a live migration
 * takes minutes) and whose pod went is an end to tell, not only a stale slot. Adds them to `free`.
 */
async function goneOf(d: EvacuationDeps, mine: readonly Slot[], inFlight: TickView['inFlight'], free: Slot[]): Promise<Set<string>> {
  const gone = new Set<string>();
  for (const s of mine.filter((x) => x.unreadable === undefined && !inFlight.has(x.uid))) {
    const pod = await getPod(d.core, split(s.pod));
    if (pod && pod.metadata.uid === s.uid) continue;
    gone.add(s.uid);
    if (!free.includes(s)) free.push(s);
  }
  return gone;
}

/**
 * Slots of pods in flight the slot store holds no readable entry for, each pod read again first: one
 * whose evacuation ended since it was listed (this tick's pass, another instance) gets none.
 */
async function toRestore(d: EvacuationDeps, slots: readonly Slot[], inFlight: TickView['inFlight']): Promise<Slot[]> {
  const out: Slot[] = [];
  for (const [uid, ref] of inFlight) {
    if (slots.some((s) => s.uid === uid && s.unreadable === undefined)) continue;
    const pod = await getPod(d.core, ref);
    if (pod?.metadata.uid !== uid || pod.metadata.annotations?.[ANNOTATIONS.state] !== 'Started' || pod.metadata.deletionTimestamp) continue;
    const attempt = Number(pod.metadata.annotations?.[ANNOTATIONS.attempt]);
    out.push({
      uid,
      pod: `${ref.namespace}/${ref.name}`,
      node: pod.spec?.nodeName ?? '',
      at: d.now(),
      ...(Number.isInteger(attempt) && attempt > 0 ? { attempt } : {}),
    });
  }
  return out;
}

/** Said once, by the instance whose write mended the slot store. */
async function mended(d: EvacuationDeps, done: Settled, wasUnreadable: ReadonlySet<string>): Promise<void> {
  const unreadable = [...done.freed, ...done.restored].filter((s) => wasUnreadable.has(s.uid));
  const lost = done.restored.filter((s) => !wasUnreadable.has(s.uid));
  if (unreadable.length === 0 && lost.length === 0) return;
  observeStateUnreadable(d.metrics, 'evacuation-slots', 'unreadable', unreadable.length);
  observeStateUnreadable(d.metrics, 'evacuation-slots', 'deleted', lost.length);
  const ref = `${d.slotStore.namespace}/${SLOT_STORE_NAME}`;
  const lostWhy = done.absent ? 'it was missing' : done.unknown ? `it was ${done.unknown} and rebuilt blind, and held no slot` : 'it held no entry';
  const parts = [
    ...(unreadable.length
      ? [`${unreadable.length} unreadable entries (${unreadable.map((s) => s.uid).join(', ')}) freed or written again from their pods`]
      : []),
    ...(lost.length
      ? [`${lostWhy} for ${lost.length} evacuations in flight (${lost.map((s) => s.pod).join(', ')}): their slots written again from the pods' Started state`]
      : []),
  ];
  const note = `kube-tidy: the evacuation slots in the brakes' ledger ${ref}: ${parts.join('; ')}. New evacuations are admitted within the limits again.`.slice(
    0,
    1000,
  );
  d.log.error({ ledger: ref, unreadable: unreadable.map((s) => s.uid), restored: lost.map((s) => s.pod), absent: done.absent, unknown: done.unknown }, note);
  await d.writer
    .recordNamespaceEvent(d.slotStore.namespace, {
      reason: 'EvacuationSlotsMended',
      action: 'Rebuild',
      type: 'Warning',
      note,
      once: `evacuation-slots-${d.now()}`,
    })
    .catch(() => undefined);
}
