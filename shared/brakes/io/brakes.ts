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
import { hostname } from 'node:os';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { TransientKubeError } from '../../kube/errors.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { AbortRule } from '../../policy/brakes.js';
import type { Policy } from '../../policy/policy.js';
import { DEFAULT_BRAKES } from '../../policy/brakes.js';
import { chargesOf, reserve, tripId, tripOf, used, type Charge, type LedgerState, type Trip } from '../core/ledger.js';
import { counterEnd, describeMeter, formatWindow, metersOf, type Meter, type Subject } from '../core/meters.js';
import { emptyLedger } from '../core/ledger.js';
import { readLedger, writeLedger, type Reader } from './store.js';

/** The meters and abort rules of one policy. */
export interface BrakeSet {
  meters: Meter[];
  aborts: AbortRule[];
}

export const brakeSetOf = (policy: Policy): BrakeSet => ({ meters: metersOf(policy), aborts: (policy.brakes ?? DEFAULT_BRAKES).abort });
export const hasBrakes = (set: BrakeSet): boolean => set.meters.length > 0 || set.aborts.length > 0;

/** Why a pod was held back, and when that budget frees. */
export interface Deferral {
  kind: 'budget' | 'abort';
  /** The setting: maxNoOfPodsToEvictTotal, kubeTidy.brakes.rates[0], kubeTidy.brakes.abort. */
  budget: string;
  scope: string;
  key?: string;
  limit?: number;
  window?: string;
  /** When the window ends (RFC 3339); an abort has none: resuming is a deliberate act. */
  freesAt?: string;
  why: string;
}

export interface Ticket {
  counters: string[];
}

export type Take = { ticket: Ticket } | { deferred: Deferral };

export interface BrakesOptions {
  core: Reader;
  writer: ClusterWriter;
  namespace: string;
  dryRun: boolean;
  now: () => number;
  /** Unique per process: its hold's name in the ledger. */
  holder?: string;
  /** How long a hold lives unrenewed before anyone charges it in full. */
  holdMs?: number;
  /** Extra units per counter the event path reserves with its own. */
  chunk?: number;
  /** Unused units go back after this long without a removal. */
  idleMs?: number;
  /** A cached ledger older than this is read again before deferring on it or checking trips. */
  staleMs?: number;
}

const ROUNDS = 20;

export class Brakes {
  readonly holder: string;
  private stored: { cm: V1ConfigMap | undefined; state: LedgerState; at: number } | undefined;
  /** This holder's grants as last written; removals charged since; removals under way. */
  private grants: Record<string, number> = {};
  private spent: Record<string, number> = {};
  private inflight: Record<string, number> = {};
  private until = 0;
  private lock: Promise<unknown> = Promise.resolve();
  private idle: NodeJS.Timeout | undefined;
  /** Ledger requests sent (reads and writes): what the brakes cost, for answers and benches. */
  requests = 0;
  writes = 0;
  private readonly holdMs: number;
  private readonly chunk: number;
  private readonly idleMs: number;
  private readonly staleMs: number;

  constructor(private readonly o: BrakesOptions) {
    this.holder = o.holder ?? `${(process.env.HOSTNAME || hostname()).slice(0, 60)}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
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

  private async read(): Promise<void> {
    const r = await readLedger(this.o.core, this.o.namespace);
    this.requests++;
    this.stored = { ...r, at: this.o.now() };
  }

  private async fresh(): Promise<LedgerState> {
    if (!this.stored || this.o.now() - this.stored.at > this.staleMs) await this.read();
    return this.stored!.state;
  }

  /**
   * A unit of every meter for removing `s`, or why not. `ahead`: the pods the caller will
   * remove next, reserved in the same write when one is needed.
   */
  async take(set: BrakeSet, s: Subject, ahead: () => readonly Subject[] = () => []): Promise<Take> {
    if (!hasBrakes(set)) return { ticket: { counters: [] } };
    if (this.o.now() >= this.until) this.expire();
    const charges = chargesOf(set.meters, s, this.o.now());
    const quick = set.aborts.length === 0 && this.needs(charges).length === 0 && !this.renewing();
    if (quick) return this.grant(charges);
    return this.exclusive(async () => {
      if (set.aborts.length > 0) {
        const trip = tripOf(await this.fresh(), set.aborts, s);
        if (trip) return { deferred: tripDeferral(trip) };
      }
      const needed = this.needs(charges);
      if (needed.length === 0 && !this.renewing()) return this.grant(charges);
      // What the ledger already shows as spent needs no write to refuse.
      const seen = await this.fresh();
      const full = needed.find((ch) => used(seen, ch.counter) + 1 > ch.max);
      if (full) return { deferred: budgetDeferral(full, s) };
      const want = needed.length ? [needed, ...ahead().map((a) => chargesOf(set.meters, a, this.o.now()))] : [];
      const blocked = (await this.write(want, this.chunk))[0];
      if (needed.length && blocked) return { deferred: budgetDeferral(blocked, s) };
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
      this.idle = setTimeout(() => void this.settle().catch(() => undefined), this.idleMs);
      this.idle.unref();
    }
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
  }

  /** A hold that outlived its time was charged in full by whoever wrote next: nothing of it is ours to spend or settle. */
  private expire(): void {
    this.grants = Object.fromEntries(Object.entries(this.inflight).filter(([, n]) => n > 0));
    this.spent = {};
  }

  /** One ledger write: settle, keep (all unspent, or with `release` only what is in flight), admit `want`. */
  private async write(want: readonly Charge[][], chunk: number, release = false): Promise<(Charge | undefined)[]> {
    for (let round = 0; round < ROUNDS; round++) {
      if (!this.stored || round > 0) await this.read();
      const now = this.o.now();
      const spent = { ...this.spent };
      const keep: Record<string, number> = {};
      for (const c of Object.keys(this.grants)) keep[c] = release ? Math.max(0, this.inflight[c] ?? 0) : (this.grants[c] ?? 0) - (spent[c] ?? 0);
      const result = reserve(this.stored!.state, { holder: this.holder, spent, keep, want, chunk, holdMs: this.holdMs, now });
      let cm: V1ConfigMap | undefined | false = this.stored!.cm;
      if (!this.o.dryRun) {
        cm = await writeLedger(this.o.writer, this.o.namespace, this.stored!.cm, result.state);
        this.requests++;
        this.writes++;
        if (cm === false) continue;
      }
      this.stored = { cm, state: result.state, at: now };
      for (const [c, n] of Object.entries(spent)) this.spent[c] = (this.spent[c] ?? 0) - n;
      for (const c of Object.keys(this.spent)) if (this.spent[c]! <= 0) delete this.spent[c];
      this.grants = { ...result.grants };
      this.until = now + this.holdMs;
      return result.blocked;
    }
    throw new TransientKubeError(`${this.o.namespace}/kube-tidy-brakes: still contended after ${ROUNDS} rounds`, { kind: 'conflict', message: 'brakes ledger contended', causes: [] });
  }

  /** Records that a pass's abort stopped a scope (until raised or resumed). */
  async trip(trip: Trip): Promise<void> {
    await this.mutate((s) => void (s.trips[tripId(trip.scope, trip.key)] = trip));
  }

  /** A person's override: every trip lifted; how many were. */
  async resume(): Promise<number> {
    let n = 0;
    await this.mutate((s) => {
      n = Object.keys(s.trips).length;
      s.trips = {};
    });
    return n;
  }

  private async mutate(change: (s: LedgerState) => void): Promise<void> {
    await this.exclusive(async () => {
      for (let round = 0; round < ROUNDS; round++) {
        if (!this.stored || round > 0) await this.read();
        const state: LedgerState = structuredClone(this.stored?.state ?? emptyLedger());
        change(state);
        if (this.o.dryRun) {
          this.stored = { cm: this.stored?.cm, state, at: this.o.now() };
          return;
        }
        const cm = await writeLedger(this.o.writer, this.o.namespace, this.stored?.cm, state);
        this.requests++;
        this.writes++;
        if (cm === false) continue;
        this.stored = { cm, state, at: this.o.now() };
        return;
      }
      throw new TransientKubeError(`${this.o.namespace}/kube-tidy-brakes: still contended after ${ROUNDS} rounds`, { kind: 'conflict', message: 'brakes ledger contended', causes: [] });
    });
  }

  /** The ledger as last seen (read now if never): what `policy check` and the metrics show. */
  async state(): Promise<LedgerState> {
    return this.exclusive(() => this.fresh());
  }
}

export function budgetDeferral(ch: Charge, s: Subject): Deferral {
  const m = ch.meter;
  const key = m.scope === 'cluster' ? undefined : ch.counter.split('|').slice(3).join('|');
  const freesAt = new Date(counterEnd(ch.counter)).toISOString();
  return {
    kind: 'budget',
    budget: m.name,
    scope: m.scope,
    ...(key === undefined ? {} : { key }),
    limit: m.max,
    window: formatWindow(m.windowMs),
    freesAt,
    why: `deferred: ${describeMeter(m, s)} is spent for this window; it frees by ${freesAt}`,
  };
}

export function tripDeferral(t: Trip): Deferral {
  const where = t.scope === 'cluster' ? 'the cluster' : `${t.scope} ${t.key}`;
  return {
    kind: 'abort',
    budget: 'kubeTidy.brakes.abort',
    scope: t.scope,
    ...(t.scope === 'cluster' ? {} : { key: t.key }),
    why: `deferred: pass ${t.pass} stopped ${where} at ${new Date(t.at).toISOString()} (it would have removed ${t.selected} of ${t.considered} pods, more than ${t.percent}%); raise the percent or resume with invoke's override`,
  };
}
