// One process's side of the shared ledger (core/ledger.ts). Every path that removes a pod asks
// `take` first and reports with `done` once the API server answered; only a removal it
// confirmed (or a timeout, which may have removed it) is charged. Units are reserved in
// chunks and settled with the next write, so most removals cost no request here:
// - the event path reserves for its pod plus a small chunk (a quarter of what is left, at most
//   `chunk`), and gives back what it did not use after `idleMs` without work;
// - a pass reserves for the pods it is about to remove (`ahead`) in one write.
// A hold is renewed while in use and charged in full by anyone once it expires, so a killed
// instance loses its reservation and nothing is double-spent.
// In a dry run nothing is written: the stored ledger is read, and what this process would
// have reserved is kept here, so a plan defers what a run would.
// What the ledger costs is counted by the caller, in a request tally opened around each call
// (kube/request-tally.ts; cleanup/io/pass-brakes.ts): one object serves every pass and event
// of the process at once, so a count kept here could not say whose requests they were.
// After each ledger read or write, the budget gauge is set from the ledger as the API server
// has it (budget-gauge.ts), and again when a window ends without one (no request: what was
// last seen, minus the windows that ended); a dry run's would-be reservations are not shown.
import { hostname } from 'node:os';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { contended, retryOnConflict } from '../../kube/conflict.js';
import type { ConfigMapStore } from '../../kube/configmap-store.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { AbortRule } from '../../policy/brakes-schema.js';
import type { Policy } from '../../policy/policy.js';
import { DEFAULT_BRAKES } from '../../policy/brakes-schema.js';
import { observeBudgets } from './budget-gauge.js';
import { chargesOf, rebuiltBlind, reserve, tripId, used, type Charge, type LedgerState, type Trip } from '../core/ledger.js';
import { metersOf, windowStart, type Meter, type Subject } from '../core/meters.js';
import { budgetDeferral, chargeDeferral, stopOf, tripDeferral, type Deferral } from '../core/deferral.js';
import type { Logger } from '../../log.js';
import { MetricsRecorder } from '../../metrics/recorder.js';
import { lostWhy, rebuildSaid } from './lost.js';
import type { Ticket } from '../../model/removal.js';

export { budgetDeferral, tripDeferral, type Deferral };
import { BRAKES_NAME, ledgerStore, type Reader } from './store.js';

/** The meters and abort rules of one policy. */
export interface BrakeSet {
  meters: Meter[];
  aborts: AbortRule[];
}

export const brakeSetOf = (policy: Policy): BrakeSet => ({ meters: metersOf(policy), aborts: (policy.brakes ?? DEFAULT_BRAKES).abort });
export const hasBrakes = (set: BrakeSet): boolean => set.meters.length > 0 || set.aborts.length > 0;

export type { Ticket };

export type Take = { ticket: Ticket } | { deferred: Deferral };

export interface BrakesOptions {
  core: Reader;
  writer: ClusterWriter;
  namespace: string;
  dryRun: boolean;
  now: () => number;
  /** Unique per process: its hold's name in the ledger (by default from `instance`). */
  holder?: string;
  /** This process's name as its host knows it (the pod's HOSTNAME): the start of `holder`. */
  instance?: string;
  /** The deferrals this process has told (tell.ts): one set per process, shared by its plan's brakes. */
  told?: Set<string>;
  /** How long a hold lives unrenewed before anyone charges it in full. */
  holdMs?: number;
  /** Extra units per counter the event path reserves with its own. */
  chunk?: number;
  /** Unused units go back after this long without a removal. */
  idleMs?: number;
  /** A cached ledger older than this is read again before deferring on it or checking trips. */
  staleMs?: number;
  /** Where a ledger found unreadable, deleted or replaced is said (besides its Event and metric). */
  log?: Logger;
  /** Where deferrals, a ledger rebuilt and the budgets left are counted: the host's recorder (none: not counted). */
  metrics?: MetricsRecorder;
}

const ROUNDS = 20;

export class Brakes {
  readonly holder: string;
  /** Which deferrals were told already (tell.ts `tellDeferral`): once per budget and window in this process. */
  readonly told: Set<string>;
  /** The host's recorder (metrics/recorder.ts): deferrals told, the ledger rebuilt, the budgets left. */
  readonly metrics: MetricsRecorder;
  private stored: { cm: V1ConfigMap | undefined; state: LedgerState; at: number } | undefined;
  /** This holder's grants as last written; removals charged since; removals under way. */
  private grants: Record<string, number> = {};
  private spent: Record<string, number> = {};
  private inflight: Record<string, number> = {};
  private until = 0;
  /** The smallest limit each counter this process took units of is read against (what `tight` judges). */
  private maxOf: Record<string, number> = {};
  /** Settles just before the hold would expire, so a live process does not lose its chunk. */
  private expiring: NodeJS.Timeout | undefined;
  private lock: Promise<unknown> = Promise.resolve();
  private idle: NodeJS.Timeout | undefined;
  /** The meters of the last take's policy: what the budget gauge reports on. */
  private meters: readonly Meter[] = [];
  /** The ledger as the API server last had it, and when the gauge is set again from it. */
  private lastSeen: LedgerState | undefined;
  private rollover: { timer: NodeJS.Timeout; at: number } | undefined;
  private readonly holdMs: number;
  private readonly chunk: number;
  private readonly idleMs: number;
  private readonly staleMs: number;

  private readonly store: ConfigMapStore<LedgerState>;

  constructor(private readonly o: BrakesOptions) {
    this.store = ledgerStore(o.core, o.writer, o.namespace);
    this.holder = o.holder ?? `${(o.instance || hostname()).slice(0, 60)}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    this.told = o.told ?? new Set();
    this.metrics = o.metrics ?? MetricsRecorder.off();
    this.holdMs = o.holdMs ?? 60_000;
    this.chunk = o.chunk ?? 8;
    this.idleMs = o.idleMs ?? 2_000;
    this.staleMs = o.staleMs ?? 2_000;
  }

  get namespace(): string {
    return this.o.namespace;
  }

  private free(c: string): number {
    return (this.grants[c] ?? 0) - (this.spent[c] ?? 0) - (this.inflight[c] ?? 0);
  }

  /** One at a time: the ledger is read-modify-written, and local accounting follows each write. */
  private exclusive<T>(job: () => Promise<T>): Promise<T> {
    const run = this.lock.then(job, job);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** The uid of the ledger this process last read or wrote: none, or another, means it was deleted or replaced since. */
  private known: string | undefined;
  /** A dry run's rebuild, which it never writes: the same one for every later read of the same bad copy. */
  private dryBlind: { rv: string | undefined; state: LedgerState } | undefined;

  /**
   * Reads the ledger. One that cannot be trusted (unreadable, written by another field manager,
   * or deleted or replaced since this process saw it) is never taken as it reads: it is rebuilt blind (core/ledger.ts) and written
   * back at the resourceVersion read, so every instance defers what it guards until its windows
   * end; said once by whoever rebuilt it (lost.ts). A dry run keeps its rebuild here.
   */
  private async read(): Promise<void> {
    for (let round = 0; round < ROUNDS; round++) {
      const seen = await this.store.read();
      const now = this.o.now();
      const lost = lostWhy(seen, this.known);
      if (lost === undefined) return this.keep(seen.cm, seen.value, now);
      const rv = seen.cm?.metadata?.resourceVersion;
      if (this.o.dryRun) {
        const kept = this.dryBlind && this.dryBlind.rv === rv ? this.dryBlind : { rv, state: rebuiltBlind(seen.value, lost.why, now, lost.excerpt) };
        this.dryBlind = kept;
        return this.keep(seen.cm, kept.state, now);
      }
      const state = rebuiltBlind(seen.value, lost.why, now, lost.excerpt);
      const written = await this.store.write(seen.cm, state);
      if (written === false) continue;
      this.keep(written, state, now);
      await rebuildSaid(this.metrics, this.o.writer, this.o.log, { namespace: this.o.namespace, name: BRAKES_NAME, at: now }, lost);
      return;
    }
    throw contended(`${this.o.namespace}/${BRAKES_NAME}`, ROUNDS, 'brakes ledger contended');
  }

  private keep(cm: V1ConfigMap | undefined, value: LedgerState, at: number): void {
    this.known = cm?.metadata?.uid ?? this.known;
    this.stored = { cm, state: this.o.dryRun ? this.withDry(value) : value, at };
    this.seen(value, at);
  }

  /** A dry run's own spending and hold, which the stored ledger never saw, laid over each read. */
  private dryCounts: Record<string, number> = {};
  private withDry(state: LedgerState): LedgerState {
    const counts = { ...state.counts };
    for (const [c, n] of Object.entries(this.dryCounts)) counts[c] = (counts[c] ?? 0) + n;
    const holds = { ...state.holds };
    if (Object.keys(this.grants).length > 0) holds[this.holder] = { until: this.until, grants: { ...this.grants } };
    return { counts, holds, trips: { ...state.trips }, ...(state.blind ? { blind: state.blind } : {}) };
  }

  /** The ledger as the API server has it, just read or written: the budget gauge. */
  private seen(state: LedgerState, now: number): void {
    if (this.meters.length === 0) return;
    observeBudgets(this.metrics, this.meters, state, now);
    this.lastSeen = state;
    // An idle process's gauge still rolls over with the windows: set again at the next window's end.
    const at = Math.min(...this.meters.map((m) => windowStart(now, m.windowMs) + m.windowMs));
    if (this.rollover && this.rollover.at <= at) return;
    if (this.rollover) clearTimeout(this.rollover.timer);
    const timer = setTimeout(() => {
      this.rollover = undefined;
      if (this.lastSeen) this.seen(this.lastSeen, this.o.now());
    }, at - now);
    timer.unref();
    this.rollover = { timer, at };
  }

  private async fresh(): Promise<LedgerState> {
    if (!this.stored || this.o.now() - this.stored.at > this.staleMs) await this.read();
    return this.stored!.state;
  }

  /**
   * A unit of every meter for removing `s`, or why not. `ahead`: the pods the caller will
   * remove next, reserved in the same write when one is needed. `pass`: the pass (or shard's
   * pass) asking, which its own abort's trip does not stop (core/ledger.ts tripOf).
   */
  async take(set: BrakeSet, s: Subject, ahead: () => readonly Subject[] = () => [], pass?: string): Promise<Take> {
    this.meters = set.meters;
    if (!hasBrakes(set)) return { ticket: { counters: [] } };
    if (this.o.now() >= this.until) this.expire();
    const charges = chargesOf(set.meters, s, this.o.now());
    const quick = set.aborts.length === 0 && this.needs(charges).length === 0 && !this.renewing();
    if (quick) return this.grant(charges);
    return this.exclusive(async () => {
      if (set.aborts.length > 0) {
        const stop = stopOf(await this.fresh(), set.aborts, s, pass);
        if (stop) return { deferred: stop };
      }
      const needed = this.needs(charges);
      if (needed.length === 0 && !this.renewing()) return this.grant(charges);
      // What the ledger already shows as spent needs no write to refuse. Judged on the cached
      // copy, read again only when that says no and is old: a reservation written on a stale
      // copy costs nothing extra (the API server answers 409 and it is read again).
      if (!this.stored) await this.read();
      const over = () => needed.find((ch) => used(this.stored!.state, ch.counter) + 1 > ch.max);
      let full = over();
      if (full && this.o.now() - this.stored!.at > this.staleMs) {
        await this.read();
        full = over();
      }
      if (full) return { deferred: chargeDeferral(this.stored!.state, full, s) };
      const want = needed.length ? [needed, ...ahead().map((a) => chargesOf(set.meters, a, this.o.now()))] : [];
      const blocked = (await this.write(want, this.chunk))[0];
      if (needed.length && blocked) return { deferred: chargeDeferral(this.stored!.state, blocked, s) };
      return this.grant(charges);
    });
  }

  /** The charges this process has no unit of its own for. */
  private needs(charges: readonly Charge[]): Charge[] {
    return charges.filter((ch) => this.free(ch.counter) < 1);
  }

  /** A hold past half its life is renewed by the next take, so one in use never expires. */
  private renewing(): boolean {
    return Object.keys(this.grants).length > 0 && this.until - this.o.now() <= this.holdMs / 2;
  }

  private grant(charges: readonly Charge[]): Take {
    for (const ch of charges) this.maxOf[ch.counter] = Math.min(this.maxOf[ch.counter] ?? Infinity, ch.max);
    const counters = [...new Set(charges.map((c) => c.counter))];
    for (const c of counters) this.inflight[c] = (this.inflight[c] ?? 0) + 1;
    if (this.idle) clearTimeout(this.idle);
    return { ticket: { counters } };
  }

  /** The API server answered: `charged` when the pod was removed (or may have been: a timeout). */
  done(ticket: Ticket, charged: boolean): void {
    for (const c of ticket.counters) {
      this.inflight[c] = (this.inflight[c] ?? 0) - 1;
      if (charged) this.spent[c] = (this.spent[c] ?? 0) + 1;
    }
    if (ticket.counters.length > 0 && Object.values(this.inflight).every((n) => n <= 0)) {
      if (this.idle) clearTimeout(this.idle);
      this.idle = setTimeout(() => void (this.tight() ? this.settle() : undefined)?.catch(() => undefined), this.idleMs);
      this.idle.unref();
    }
  }

  /**
   * Whether units this process holds unused may be what another instance needs: some budget
   * it holds units of has little left. Then an idle process gives them back; with room to spare
   * it keeps its chunk for the next events (a write saved per event), settling with its next
   * write or just before its hold would expire.
   */
  private tight(): boolean {
    const state = this.stored?.state;
    if (!state) return true;
    return Object.keys(this.grants).some((c) => this.free(c) > 0 && (this.maxOf[c] ?? 0) - used(state, c) < 2 * this.chunk + 2);
  }

  /** Writes what was spent and gives back what is not in flight. Nothing to say: no request. */
  async settle(): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    await this.exclusive(async () => {
      const pending = Object.values(this.spent).some((n) => n > 0) || Object.keys(this.grants).some((c) => this.free(c) > 0);
      if (pending) await this.write([], 0, true);
    });
  }

  /** Stops any timer (tests, a draining process): what is unsettled expires and is charged in full. */
  close(): void {
    if (this.idle) clearTimeout(this.idle);
    if (this.expiring) clearTimeout(this.expiring);
    if (this.rollover) clearTimeout(this.rollover.timer);
    this.rollover = undefined;
  }

  /** A hold that outlived its time was charged in full by whoever wrote next: nothing of it is ours to spend or settle. */
  private expire(): void {
    this.grants = Object.fromEntries(Object.entries(this.inflight).filter(([, n]) => n > 0));
    this.spent = {};
  }

  /** One ledger write: settle, keep (all unspent, or with `release` only what is in flight), admit `want`. */
  private async write(want: readonly Charge[][], chunk: number, release = false): Promise<(Charge | undefined)[]> {
    let spent: Record<string, number> = {};
    let result: ReturnType<typeof reserve> | undefined;
    const now = await this.commit((stored, at) => {
      spent = { ...this.spent };
      const keep: Record<string, number> = {};
      for (const c of Object.keys(this.grants)) keep[c] = release ? Math.max(0, this.inflight[c] ?? 0) : (this.grants[c] ?? 0) - (spent[c] ?? 0);
      result = reserve(stored, { holder: this.holder, spent, keep, want, chunk, holdMs: this.holdMs, now: at });
      return result.state;
    });
    if (this.o.dryRun) for (const [c, n] of Object.entries(spent)) this.dryCounts[c] = (this.dryCounts[c] ?? 0) + Math.min(n, this.grants[c] ?? 0);
    for (const [c, n] of Object.entries(spent)) this.spent[c] = (this.spent[c] ?? 0) - n;
    for (const c of Object.keys(this.spent)) if (this.spent[c]! <= 0) delete this.spent[c];
    this.grants = { ...result!.grants };
    this.until = now + this.holdMs;
    if (this.expiring) clearTimeout(this.expiring);
    if (Object.keys(this.grants).length > 0) {
      this.expiring = setTimeout(() => void this.settle().catch(() => undefined), this.holdMs - Math.min(10_000, this.holdMs / 4));
      this.expiring.unref();
    }
    return result!.blocked;
  }

  /**
   * The one read-modify-write of the ledger: `next` builds the new state from the stored one,
   * written only at the resourceVersion read (409: read again and rebuild). A dry run keeps it
   * here and writes nothing. When it was committed (this process's clock).
   */
  private async commit(next: (stored: LedgerState, now: number) => LedgerState): Promise<number> {
    return retryOnConflict(
      async (round) => {
        if (!this.stored || round > 0) await this.read();
        return this.stored!;
      },
      async (stored) => {
        const now = this.o.now();
        const state = next(stored.state, now);
        let cm = stored.cm;
        if (!this.o.dryRun) {
          const written = await this.store.write(cm, state);
          if (written === false) return false;
          cm = written;
          this.known = written.metadata?.uid ?? this.known;
          this.seen(state, now);
        }
        this.stored = { cm, state, at: now };
        return now;
      },
      {
        attempts: ROUNDS,
        exhausted: () => {
          throw contended(`${this.o.namespace}/${BRAKES_NAME}`, ROUNDS, 'brakes ledger contended');
        },
      },
    );
  }

  /** Records that a pass's abort stopped a scope (until raised or resumed). */
  async trip(trip: Trip): Promise<void> {
    await this.mutate((s) => void (s.trips[tripId(trip.scope, trip.key)] = trip));
  }

  /**
   * Lifts trips: every one (a person's override), or those no current rule stands behind (the
   * percent was raised or the rule removed: the scope resumed, and lowering the rule later must
   * not stop it again on an old trip). `unknown`: also the trips a blind rebuild made unknown
   * (only a person's override). How many were lifted; no write when none.
   */
  async resume(which: (t: Trip) => boolean = () => true, unknown = false): Promise<number> {
    const state = await this.state();
    const blindTrips = unknown && state.blind?.trips === true;
    if (!blindTrips && !Object.values(state.trips).some(which)) return 0;
    let n = 0;
    await this.mutate((s) => {
      n = 0;
      if (unknown && s.blind?.trips) {
        s.blind.trips = false;
        n++;
      }
      for (const [id, t] of Object.entries(s.trips)) {
        if (!which(t)) continue;
        delete s.trips[id];
        n++;
      }
    });
    return n;
  }

  private async mutate(change: (s: LedgerState) => void): Promise<void> {
    await this.exclusive(() =>
      this.commit((stored) => {
        const state = structuredClone(stored);
        change(state);
        return state;
      }),
    );
  }

  /** The ledger as last seen (read now if never): what `policy check` and the metrics show. */
  async state(): Promise<LedgerState> {
    return this.exclusive(() => this.fresh());
  }
}
