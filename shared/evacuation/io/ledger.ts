// The slots of evacuations in flight: one ConfigMap per cluster (data: pod uid -> slot as
// JSON), the rules in core/limits.ts. Kept through the one ConfigMap store
// (kube/configmap-store.ts): only written at the resourceVersion it was read at (through the
// ClusterWriter), so the API server serialises every change and two instances cannot both take
// the last slot: the loser gets 409, reads again and decides again.
//
// In a dry run nothing is stored, so a Ledger (one per request) also keeps the slots it would
// have taken and given back: the next pod of the same tick is admitted against them, and a
// dry-run answer says what a real tick would do within the limits.
import { z } from 'zod';
import { ConfigMapStore, jsonEntries, readStored, type ConfigMapReader } from '../../kube/configmap-store.js';
import { EVACUATION_LEDGER_NAME } from '../../kube/names.js';
import type { ClusterWriter } from '../../kube/writer.js';
import { admit, type Admission, type Limits, type Slot } from '../core/limits.js';

export { EVACUATION_LEDGER_NAME as LEDGER_NAME };
const ROUNDS = 10;

type Reader = ConfigMapReader;
type Held = Map<string, Omit<Slot, 'uid'>>;

// As lenient as the ledger always read: any JSON value but null holds a slot, its fields taken
// as they come (a hand-edited one is then freed as stale by the tick); text that is not JSON,
// or null, holds none (and is dropped by the next write).
const entry = z
  .custom<Record<string, unknown>>((v) => v !== null && v !== undefined)
  .transform((s) => ({
    pod: String(s.pod),
    node: String(s.node),
    at: Number(s.at) || 0,
    // Kept since issue 33; a slot without it (taken before) ends without saying its attempt.
    ...(Number.isInteger(s.attempt) && (s.attempt as number) > 0 ? { attempt: s.attempt as number } : {}),
  }));

/** The ConfigMap's data <-> the slots (pod uid -> {pod, node, at, attempt}). */
export const slotsCodec = jsonEntries(entry);

const where = (namespace: string) => ({ namespace, name: EVACUATION_LEDGER_NAME, codec: slotsCodec });

const slotsOf = (held: Held): Slot[] => [...held].map(([uid, s]) => ({ uid, ...s }));

/** The slots as stored; no writer needed (tests, the tick's look at what is held). */
export async function listSlots(core: Reader, namespace: string): Promise<Slot[]> {
  return slotsOf((await readStored(core, where(namespace))).value);
}

export class Ledger {
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
      const verdict = admit(this.held(stored), uid, slot.node, limits);
      if (!verdict.ok || verdict.held) return { answer: { verdict, wrote: false } };
      return { next: new Map(stored).set(uid, value), answer: { verdict, wrote: true } };
    }, ROUNDS);
    if (wrote && this.writer.dryRun) {
      this.taken.set(uid, slot);
      this.freed.delete(uid);
    }
    return verdict;
  }

  /** Give back the slots `which` picks (none held is fine): one read, one write. */
  /** Gives back the slots `which` picks; answers those it freed. */
  async release(which: (slot: Slot) => boolean): Promise<Slot[]> {
    const freed = await this.store.update(({ value: stored }) => {
      const freed = this.held(stored).filter(which);
      if (freed.length === 0) return { answer: freed };
      const next = new Map(stored);
      for (const s of freed) next.delete(s.uid);
      return { next, answer: freed };
    }, ROUNDS);
    if (this.writer.dryRun) {
      for (const s of freed) {
        this.taken.delete(s.uid);
        this.freed.add(s.uid);
      }
    }
    return freed;
  }
}
