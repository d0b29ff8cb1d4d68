// The slots of evacuations in flight, kept in the brakes' one ledger (ConfigMap `kube-tidy-brakes`
// in BRAKES_NAMESPACE; brakes/core/slots.ts has the rules, brakes/io/store.ts the strict codec).
// Only written at the resourceVersion it was read at (through the ClusterWriter), so the API
// server serialises every change and two instances cannot both take the last slot: the loser
// gets 409, reads again and decides again. The brakes' own writes carry the slots as they are.
//
// A ledger that cannot be trusted (unreadable, deleted or replaced since this process saw it:
// brakes/io/lost.ts) is rebuilt blind as the brakes rebuild it, and said the same way; its slots
// are then unknown, never free: no new slot is taken until a tick has written back those of the
// pods in flight (slots.ts). Slots the previous release kept in a ConfigMap of their own are
// carried in first (legacy-slots.ts), once per process.
//
// In a dry run nothing is stored, so a SlotStore (one per request) also keeps the slots it would
// have taken and given back: the next pod of the same tick is admitted against them, and a
// dry-run answer says what a real tick would do within the limits.
import { contended, retryOnConflict } from '../../kube/conflict.js';
import type { ConfigMapReader, ConfigMapStore, Seen } from '../../kube/configmap-store.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { Logger } from '../../log.js';
import { MetricsRecorder } from '../../metrics/recorder.js';
import { rebuiltBlind, type Blind, type LedgerState } from '../../brakes/core/ledger.js';
import { mendSlots, releaseSlots, slotsOf, slotsUnknown, takeSlots, unknownWhy } from '../../brakes/core/slots.js';
import { lostWhy, rebuildSaid, type Lost } from '../../brakes/io/lost.js';
import { BRAKES_NAME, ledgerStore, readLedger } from '../../brakes/io/store.js';
import { admit, type Admission, type Limits, type Slot } from '../core/limits.js';
import { LEGACY_SLOTS_NAME, legacySlots, readLegacy } from './legacy-slots.js';

/** Where the slots are: the brakes' ledger. */
export { BRAKES_NAME as SLOT_STORE_NAME };
const ROUNDS = 10;

/** The slots as stored in the ledger in `namespace` (none when it cannot be read); no writer needed (tests, a look at what is held). */
export async function listSlots(core: ConfigMapReader, namespace: string): Promise<Slot[]> {
  return slotsOf((await readLedger(core, namespace)).value);
}

/** What one `settle` wrote: the slots it freed and restored, whether it found no ledger, and the blind rebuild it mended. */
export interface Settled {
  freed: Slot[];
  restored: Slot[];
  /** No ledger was there (deleted, or never written). */
  absent: boolean;
  /** The slots were unknown (a blind rebuild, why): this settle wrote them back from the pods. */
  unknown?: string;
}

/** What a process keeps across its requests' stores: the ledger it last saw, whether the old slots are carried. */
export interface SlotMemo {
  known?: string;
  carried?: boolean;
}

export interface SlotStoreOptions {
  /** The brakes' namespace (BRAKES_NAMESPACE): where the ledger is. */
  namespace: string;
  /** Where the previous release kept the slots (EVACUATION_NAMESPACE): carried from there. */
  legacyNamespace: string;
  memo?: SlotMemo;
  now: () => number;
  log?: Logger;
  /** Where a ledger found unreadable, deleted or replaced is counted: the host's recorder (none: not counted). */
  metrics?: MetricsRecorder;
}

type Decide<R> = (state: LedgerState, seen: Seen<LedgerState>) => { next?: LedgerState; answer: R };

export class SlotStore {
  /** A dry run's own changes, which the API server did not keep. */
  private readonly taken = new Map<string, Slot>();
  private readonly freed = new Set<string>();
  /** A dry run's view of the old slots it did not carry, and whether it mended unknown slots. */
  private legacy: Slot[] = [];
  private mendedDry = false;
  private readonly store: ConfigMapStore<LedgerState>;
  private readonly memo: SlotMemo;

  constructor(
    private readonly core: ConfigMapReader,
    private readonly writer: ClusterWriter,
    private readonly o: SlotStoreOptions,
  ) {
    this.store = ledgerStore(core, writer, o.namespace);
    this.memo = o.memo ?? {};
  }

  get namespace(): string {
    return this.o.namespace;
  }

  /** The slots as stored, with the old store's not yet carried and a dry run's own changes over them. */
  private held(state: LedgerState): Slot[] {
    const stored = slotsOf(state);
    const slots = [...stored, ...this.legacy.filter((l) => !stored.some((s) => s.uid === l.uid))];
    return [...slots.filter((s) => !this.freed.has(s.uid) && !this.taken.has(s.uid)), ...this.taken.values()];
  }

  private unknown(state: LedgerState): Blind | undefined {
    return this.mendedDry ? undefined : slotsUnknown(state);
  }

  /**
   * Read (a ledger that cannot be trusted rebuilt blind first), decide, write at the
   * resourceVersion read; a rebuild is written even when nothing else changes, and said once.
   */
  private async update<R>(decide: Decide<R>): Promise<R> {
    let lost: Lost | undefined;
    const now = this.o.now();
    const answer = await this.store.update((seen) => {
      lost = lostWhy(seen, this.memo.known);
      if (!lost) this.memo.known = seen.cm?.metadata?.uid ?? this.memo.known;
      const state = lost ? rebuiltBlind(seen.value, lost.why, now, lost.excerpt) : seen.value;
      const { next, answer } = decide(state, seen);
      return { next: next ?? (lost ? state : undefined), answer };
    }, ROUNDS);
    if (lost && !this.writer.dryRun)
      await rebuildSaid(this.o.metrics ?? MetricsRecorder.off(), this.writer, this.o.log, { namespace: this.o.namespace, name: BRAKES_NAME, at: now }, lost);
    return answer;
  }

  /** The slots held, and the blind rebuild that makes them unknown (none taken until a tick mends them). */
  async view(): Promise<{ slots: Slot[]; unknown?: Blind }> {
    await this.carry();
    return this.update((state) => {
      const unknown = this.unknown(state);
      return { answer: { slots: this.held(state), ...(unknown ? { unknown } : {}) } };
    });
  }

  async slots(): Promise<Slot[]> {
    return (await this.view()).slots;
  }

  /** Take a slot for the pod within the limits (idempotent: a slot it holds is kept). */
  async acquire(slot: Slot, limits: Limits): Promise<Admission> {
    await this.carry();
    const { verdict, wrote } = await this.update((state) => {
      const held = this.held(state);
      const unknown = this.unknown(state);
      if (unknown && !held.some((s) => s.uid === slot.uid)) return { answer: { verdict: { ok: false, why: unknownWhy(unknown) } as Admission, wrote: false } };
      const verdict = admit(held, slot.uid, slot.node, limits);
      if (!verdict.ok || verdict.held) return { answer: { verdict: withUnreadable(verdict, held), wrote: false } };
      return { next: takeSlots(state, [slot]), answer: { verdict, wrote: true } };
    });
    if (wrote && this.writer.dryRun) {
      this.taken.set(slot.uid, slot);
      this.freed.delete(slot.uid);
    }
    return verdict;
  }

  /** Gives back the slots `which` picks (none held is fine): one read, one write; answers those it freed. */
  async release(which: (slot: Slot) => boolean): Promise<Slot[]> {
    return (await this.settle(which, [], false)).freed;
  }

  /**
   * One read, one write: gives back the slots `free` picks, and writes `restore` (slots of pods
   * in flight) where the ledger as read holds no readable entry for their pod. `mend`: the
   * tick's settle, which knows from the pods what is in flight; unknown slots are known again.
   */
  async settle(free: (slot: Slot) => boolean, restore: readonly Slot[], mend = true): Promise<Settled> {
    await this.carry();
    const done = await this.update((state, seen) => {
      const held = this.held(state);
      const freed = held.filter(free);
      const restored = restore.filter((r) => !held.some((s) => s.uid === r.uid && s.unreadable === undefined));
      const unknown = mend ? this.unknown(state) : undefined;
      const answer: Settled = { freed, restored, absent: seen.cm === undefined, ...(unknown ? { unknown: unknown.why } : {}) };
      if (freed.length === 0 && restored.length === 0 && !unknown) return { answer };
      const gone = freed.map((s) => s.uid);
      return { next: mend ? mendSlots(state, gone, restored, this.o.now()) : releaseSlots(state, gone), answer };
    });
    if (this.writer.dryRun) {
      for (const s of done.freed) {
        this.taken.delete(s.uid);
        this.freed.add(s.uid);
      }
      for (const s of done.restored) this.taken.set(s.uid, s);
      if (mend) this.mendedDry = true;
    }
    return done;
  }

  /**
   * Carries the previous release's slots into the ledger (legacy-slots.ts), then deletes its
   * ConfigMap at the resourceVersion read: stale (it was written since) carries again. Once per
   * process (the memo); a dry run writes nothing and sees the old slots over the ledger instead.
   */
  private async carry(): Promise<void> {
    if (this.memo.carried) return;
    const { legacyNamespace } = this.o;
    await retryOnConflict(
      () => readLegacy(this.core, legacyNamespace),
      async (old) => {
        if (!old.cm) return (this.memo.carried = true);
        const slots = legacySlots(old.value);
        if (this.writer.dryRun) return ((this.legacy = slots), true);
        const carried = await this.update((state) => {
          const add = slots.filter((s) => state.slots?.[s.uid] === undefined);
          return add.length ? { next: takeSlots(state, add), answer: add } : { answer: add };
        });
        if ((await this.writer.deleteConfigMap(legacyNamespace, LEGACY_SLOTS_NAME, old.cm)) === 'stale') return false;
        this.o.log?.info(
          { from: `${legacyNamespace}/${LEGACY_SLOTS_NAME}`, to: `${this.o.namespace}/${BRAKES_NAME}`, carried: carried.map((s) => s.uid) },
          `evacuation slots carried from ${legacyNamespace}/${LEGACY_SLOTS_NAME} into the brakes' ledger (${carried.length} new), the old ConfigMap deleted`,
        );
        return (this.memo.carried = true);
      },
      {
        attempts: ROUNDS,
        exhausted: () => {
          throw contended(`${legacyNamespace}/${LEGACY_SLOTS_NAME}`, ROUNDS, 'evacuation slots contended');
        },
      },
    );
  }
}

/** A refusal that counted unreadable entries says so: the person reading it finds what to mend. */
function withUnreadable(verdict: Admission, held: readonly Slot[]): Admission {
  const n = held.filter((s) => s.unreadable !== undefined).length;
  if (verdict.ok || n === 0) return verdict;
  return { ok: false, why: `${verdict.why}; ${n} of them unreadable entries carried from the previous release's slots, held until a tick frees them` };
}
