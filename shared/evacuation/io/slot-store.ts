// The slots of evacuations in flight: one ConfigMap per cluster (data: pod uid -> slot as
// JSON), the rules in core/limits.ts. Kept through the one ConfigMap store
// (kube/configmap-store.ts): only written at the resourceVersion it was read at (through the
// ClusterWriter), so the API server serialises every change and two instances cannot both take
// the last slot: the loser gets 409, reads again and decides again.
//
// In a dry run nothing is stored, so a SlotStore (one per request) also keeps the slots it would
// have taken and given back: the next pod of the same tick is admitted against them, and a
// dry-run answer says what a real tick would do within the limits.
import { z } from 'zod';
import { ConfigMapStore, jsonEntries, readStored, type ConfigMapCodec, type ConfigMapReader } from '../../kube/configmap-store.js';
import { EVACUATION_SLOTS_NAME } from '../../model/keys.js';
import type { ClusterWriter } from '../../kube/writer.js';
import { admit, type Admission, type Limits, type Slot } from '../core/limits.js';

export { EVACUATION_SLOTS_NAME as SLOT_STORE_NAME };
const ROUNDS = 10;

type Reader = ConfigMapReader;
/** An entry that is not what kube-tidy wrote: kept as it is (a write never drops it), held, node unknown. */
interface Kept {
  raw: string;
  why: string;
}
type Entry = Omit<Slot, 'uid'> | Kept;
type Held = Map<string, Entry>;

// Exactly what kube-tidy writes. What else an entry holds (not JSON, null, a hand edit) is not
// a slot kube-tidy can read, but its key still names a pod that may be in flight: it holds a
// slot on no known node (the cluster-wide limit counts it) until a tick, which knows from the
// pods' Started state what is in flight, frees it or writes it again from its pod (tick.ts).
// `attempt`: the attempt that took it (kept since issue 33; a slot taken before ends without saying it).
const entry = z.object({ pod: z.string(), node: z.string(), at: z.number(), attempt: z.number().int().positive().optional() });
const readable = jsonEntries(entry);

/** The ConfigMap's data <-> the slots (pod uid -> {pod, node, at, attempt?}), unreadable entries kept as they are. */
export const slotsCodec: ConfigMapCodec<Held> = {
  decode: (data) => {
    const { value, unreadable } = readable.decode(data);
    const held: Held = new Map(value);
    for (const u of unreadable) held.set(u.key, { raw: data![u.key]!, why: u.why });
    return { value: held, unreadable };
  },
  encode: (held) => Object.fromEntries([...held].map(([k, e]) => [k, 'raw' in e ? e.raw : JSON.stringify(e)])),
};

const where = (namespace: string) => ({ namespace, name: EVACUATION_SLOTS_NAME, codec: slotsCodec });

const slotsOf = (held: Held): Slot[] => [...held].map(([uid, e]) => ('raw' in e ? { uid, pod: '', node: '', at: 0, unreadable: e.why } : { uid, ...e }));

/** The slots as stored, unreadable ones too (`unreadable` set); no writer needed (tests, the tick's look at what is held). */
export async function listSlots(core: Reader, namespace: string): Promise<Slot[]> {
  return slotsOf((await readStored(core, where(namespace))).value);
}

/** What one `settle` wrote: the slots it freed and restored, and whether it found no ConfigMap. */
export interface Settled {
  freed: Slot[];
  restored: Slot[];
  /** No ConfigMap was there (deleted, or never written). */
  absent: boolean;
}

export class SlotStore {
  /** A dry run's own changes, which the API server did not keep. */
  private readonly taken = new Map<string, Slot>();
  private readonly freed = new Set<string>();
  private readonly store: ConfigMapStore<Held>;

  constructor(
    core: Reader,
    private readonly writer: ClusterWriter,
    readonly namespace: string,
  ) {
    this.store = new ConfigMapStore(core, writer, { ...where(namespace), contendedMessage: 'ledger contended' });
  }

  /** The slots as stored, with a dry run's own changes over them. */
  private held(stored: Held): Slot[] {
    const slots = slotsOf(stored).filter((s) => !this.freed.has(s.uid) && !this.taken.has(s.uid));
    return [...slots, ...this.taken.values()];
  }

  async slots(): Promise<Slot[]> {
    return this.held((await this.store.read()).value);
  }

  /** Take a slot for the pod within the limits (idempotent: a slot it holds is kept). */
  async acquire(slot: Slot, limits: Limits): Promise<Admission> {
    const { uid, ...value } = slot;
    const { verdict, wrote } = await this.store.update(({ value: stored }) => {
      const held = this.held(stored);
      const verdict = admit(held, uid, slot.node, limits);
      if (!verdict.ok || verdict.held) return { answer: { verdict: withUnreadable(verdict, held), wrote: false } };
      return { next: new Map(stored).set(uid, value), answer: { verdict, wrote: true } };
    }, ROUNDS);
    if (wrote && this.writer.dryRun) {
      this.taken.set(uid, slot);
      this.freed.delete(uid);
    }
    return verdict;
  }

  /** Gives back the slots `which` picks (none held is fine): one read, one write; answers those it freed. */
  async release(which: (slot: Slot) => boolean): Promise<Slot[]> {
    return (await this.settle(which, [])).freed;
  }

  /**
   * One read, one write: gives back the slots `free` picks, and writes `restore` (slots of pods
   * in flight) where the ConfigMap as read holds no readable entry for their pod.
   */
  async settle(free: (slot: Slot) => boolean, restore: readonly Slot[]): Promise<Settled> {
    const done = await this.store.update((seen) => {
      const held = this.held(seen.value);
      const freed = held.filter(free);
      const restored = restore.filter((r) => !held.some((s) => s.uid === r.uid && s.unreadable === undefined));
      const answer = { freed, restored, absent: seen.cm === undefined };
      if (freed.length === 0 && restored.length === 0) return { answer };
      const next = new Map(seen.value);
      for (const s of freed) next.delete(s.uid);
      for (const { uid, ...value } of restored) next.set(uid, value);
      return { next, answer };
    }, ROUNDS);
    if (this.writer.dryRun) {
      for (const s of done.freed) {
        this.taken.delete(s.uid);
        this.freed.add(s.uid);
      }
      for (const s of done.restored) this.taken.set(s.uid, s);
    }
    return done;
  }
}

/** A refusal that counted unreadable entries says so: the person reading it finds what to mend. */
function withUnreadable(verdict: Admission, held: readonly Slot[]): Admission {
  const n = held.filter((s) => s.unreadable !== undefined).length;
  if (verdict.ok || n === 0) return verdict;
  return { ok: false, why: `${verdict.why}; ${n} of them unreadable entries of the slots' ConfigMap, held until a tick frees them` };
}
