// The shared ledger's rules, pure: what is spent, what is held, and who may remove one more.
//
// The ledger is one stored object every instance and path writes with optimistic concurrency
// (brakes/io/store.ts). It holds:
// - counts: removals the API server confirmed, per counter (meters.ts), for windows not over;
// - holds: per instance, units it reserved and has not yet settled. Everyone counts them as
//   spent, so two instances can never both take the last unit. An instance settles (turns
//   what it removed into counts and gives the rest back) with its next write. A hold whose
//   holder stopped writing (killed, frozen) is charged in full when it expires: nothing is
//   double-spent, and at most that one reservation is lost;
// - trips: scopes a percentage abort stopped (abort.ts); they stay until resumed;
// - blind: set when the ledger was found unreadable, deleted or replaced and rebuilt
//   (brakes/io/brakes.ts). What was spent before then is unknown, so every window that had
//   begun by then counts as spent until it ends, and trips are unknown: under a policy with
//   abort rules nothing is removed until a person resumes (the etcd rule: state that cannot be
//   read as itself is never taken as empty);
// - slots: the units of the concurrency meters (evacuations in flight), held per evacuation
//   until it ends, not per window (slots.ts); `slotsMended`: when a tick last wrote them back
//   from the pods, which a blind rebuild needs before any new slot is taken.
import type { AbortRule, BrakeScope } from '../../policy/brakes-schema.js';
import { counterEnd, counterOf, counterStart, type Meter, type Subject } from './meters.js';

export interface Hold {
  /** Until when (ms) the holder may settle it; past that it is charged in full. */
  until: number;
  grants: Record<string, number>;
}

/** A scope a percentage abort stopped: nothing is removed in it until the rule is raised or an override resumes it. */
export interface Trip {
  scope: BrakeScope;
  key: string;
  /** The rule's percent when it tripped: a policy that raises it resumes the scope. */
  percent: number;
  at: number;
  pass: string;
  /** What the pass would have removed in the scope, and how many pods it considered there. */
  selected: number;
  considered: number;
}

/** The ledger was rebuilt at `at` from a copy that could not be trusted: what it held then is unknown. */
export interface Blind {
  at: number;
  /** What was found: "unreadable (ledger.json: not JSON ...)", "deleted", "replaced". */
  why: string;
  /** Trips are unknown too, until a person resumes (invoke's override). */
  trips: boolean;
  /** The start of what could not be read, kept for the person who looks. */
  excerpt?: string;
}

/** One slot of a concurrency meter, as its evacuation holds it (slots.ts). */
export interface Slot {
  /** The pod's uid: the slot's key in the ledger. */
  uid: string;
  /** namespace/name, for people reading the ledger. */
  pod: string;
  node: string;
  /** When taken (ms): a slot of a pod that never got its Started state is dropped after a grace. */
  at: number;
  /**
   * Set when the entry could not be read (why): the slot is held, on no known node (only the
   * cluster-wide meter counts it), taken at an unknown time (`at` 0).
   */
  unreadable?: string;
  /** The attempt that took it: the end told when the slot is given back says which attempt ended (the pod may be gone). */
  attempt?: number;
}

/** A slot as the ledger stores it, under its uid. */
export type SlotEntry = Omit<Slot, 'uid'>;

export interface LedgerState {
  counts: Record<string, number>;
  holds: Record<string, Hold>;
  trips: Record<string, Trip>;
  blind?: Blind;
  /** Evacuations in flight, by pod uid (slots.ts); absent in a ledger no evacuation wrote. */
  slots?: Record<string, SlotEntry>;
  /** When (ms) evacuation's tick last wrote the slots back from the pods (slots.ts `slotsUnknown`). */
  slotsMended?: number;
}

/** What a write carries over as it was: the slots are evacuation's, settled only by its store. */
const slotsPart = (state: LedgerState): Pick<LedgerState, 'slots' | 'slotsMended'> => ({
  ...(state.slots ? { slots: { ...state.slots } } : {}),
  ...(state.slotsMended !== undefined ? { slotsMended: state.slotsMended } : {}),
});

export const emptyLedger = (): LedgerState => ({ counts: {}, holds: {}, trips: {} });

/** One unit of one meter that a removal needs. */
export interface Charge {
  counter: string;
  max: number;
  meter: Meter;
}

/** The charges of one removal of `s` at `now`; one per meter that applies to it. */
export function chargesOf(meters: readonly Meter[], s: Subject, now: number): Charge[] {
  const out: Charge[] = [];
  for (const meter of meters) {
    const counter = counterOf(meter, s, now);
    if (counter !== undefined) out.push({ counter, max: meter.max, meter });
  }
  return out;
}

const add = (into: Record<string, number>, key: string, n: number) => {
  const v = (into[key] ?? 0) + n;
  if (v > 0) into[key] = v;
  else delete into[key];
};

/** Drops counters whose window is over, and charges in full the holds that expired. */
export function normalize(state: LedgerState, now: number): LedgerState {
  const live = (counter: string) => counterEnd(counter) > now;
  const counts: Record<string, number> = {};
  for (const [c, n] of Object.entries(state.counts)) if (live(c) && n > 0) counts[c] = n;
  const holds: Record<string, Hold> = {};
  for (const [holder, hold] of Object.entries(state.holds)) {
    if (hold.until > now) holds[holder] = { until: hold.until, grants: Object.fromEntries(Object.entries(hold.grants).filter(([c, n]) => live(c) && n > 0)) };
    else for (const [c, n] of Object.entries(hold.grants)) if (live(c)) add(counts, c, n);
  }
  return { counts, holds, trips: { ...state.trips }, ...(state.blind ? { blind: { ...state.blind } } : {}), ...slotsPart(state) };
}

/**
 * The ledger rebuilt at `at` from a copy that cannot be trusted: an unreadable one starts from
 * nothing, a replaced one keeps what it holds; either way blind to what was spent before `at`,
 * with trips unknown until a person resumes, and slots unknown until a tick mends them (slots.ts).
 */
export function rebuiltBlind(base: LedgerState, why: string, at: number, excerpt?: string): LedgerState {
  return {
    counts: { ...base.counts },
    holds: { ...base.holds },
    trips: { ...base.trips },
    blind: { at, why, trips: true, ...(excerpt ? { excerpt } : {}) },
    ...(base.slots ? { slots: { ...base.slots } } : {}),
  };
}

/** Whether the counter's window had begun when the ledger was rebuilt blind: its spending is unknown. */
export const blindTo = (state: LedgerState, counter: string): boolean => state.blind !== undefined && counterStart(counter) <= state.blind.at;

/** Counted as spent: confirmed removals plus every unit anyone holds; all of it in a window the ledger is blind to. */
export function used(state: LedgerState, counter: string): number {
  if (blindTo(state, counter)) return Number.POSITIVE_INFINITY;
  let n = state.counts[counter] ?? 0;
  for (const h of Object.values(state.holds)) n += h.grants[counter] ?? 0;
  return n;
}

export interface ReserveRequest {
  holder: string;
  /** Removals charged since this holder's last write (counted now). */
  spent: Record<string, number>;
  /** Units of its hold it keeps (granted, not spent: in flight or kept for later). */
  keep: Record<string, number>;
  /** Removals to admit, in order, each with its charges. */
  want: readonly Charge[][];
  /** Up to this many extra units per counter a granted removal touched, within a quarter of what is left (the event path's chunk). */
  chunk: number;
  holdMs: number;
  now: number;
}

export interface ReserveResult {
  state: LedgerState;
  /** The holder's grants as now stored (what its local accounting restarts from). */
  grants: Record<string, number>;
  /** Per wanted removal: undefined when admitted, else the charge that did not fit. */
  blocked: (Charge | undefined)[];
}

/** Settles the holder's spending and admits what fits, in order: the content of one ledger write. */
export function reserve(stored: LedgerState, r: ReserveRequest): ReserveResult {
  const state = normalize(stored, r.now);
  // Only units of the holder's stored, live hold can be settled or kept: a hold that expired
  // was charged in full (spent units included), and a holder's memory of more than it holds
  // (a write it never heard back from) must not mint units.
  const mine = state.holds[r.holder]?.grants ?? {};
  delete state.holds[r.holder];
  const grants: Record<string, number> = {};
  for (const [c, held] of Object.entries(mine)) {
    const spent = Math.min(Math.max(0, r.spent[c] ?? 0), held);
    add(state.counts, c, spent);
    const keep = Math.min(Math.max(0, r.keep[c] ?? 0), held - spent);
    if (keep > 0) grants[c] = keep;
  }
  state.holds[r.holder] = { until: r.now + r.holdMs, grants };
  const blocked: (Charge | undefined)[] = [];
  const touched = new Map<string, number>();
  for (const charges of r.want) {
    const over = charges.find((ch) => used(state, ch.counter) + 1 > ch.max);
    blocked.push(over);
    if (over) continue;
    for (const ch of new Set(charges.map((x) => x.counter))) add(grants, ch, 1);
    for (const ch of charges) touched.set(ch.counter, Math.min(touched.get(ch.counter) ?? Infinity, ch.max));
  }
  if (r.chunk > 0) {
    for (const [c, max] of touched) {
      const extra = Math.min(r.chunk, Math.floor((max - used(state, c)) / 4));
      if (extra > 0) add(grants, c, extra);
    }
  }
  if (Object.keys(grants).length === 0) delete state.holds[r.holder];
  return { state, grants, blocked };
}

/**
 * The trip that stops removals of `s`, if a current rule still stands behind it. `pass`: the
 * pass asking (or one of its shards); its own trip does not stop the removals it kept before
 * the line, which it records first so that a crash mid-pass still leaves the scope stopped.
 */
export function tripOf(state: LedgerState, rules: readonly AbortRule[], s: Subject, pass?: string): Trip | undefined {
  for (const trip of Object.values(state.trips)) {
    if (pass !== undefined && trip.pass === pass) continue;
    const applies = trip.scope === 'cluster' || (trip.scope === 'namespace' && trip.key === s.namespace) || (trip.scope === 'owner' && trip.key === s.owner);
    if (applies && standing(trip, rules)) return trip;
  }
  return undefined;
}

/** A trip stands while a rule of its scope is at or below the percent it tripped at; raising (or removing) the rule resumes. */
export const standing = (trip: Trip, rules: readonly AbortRule[]): boolean => rules.some((r) => r.scope === trip.scope && r.percent <= trip.percent);

export const tripId = (scope: BrakeScope, key: string): string => `${scope}|${key}`;
