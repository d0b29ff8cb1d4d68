// What a held-back pod is told, pure: which budget, its scope and limit, and when it frees (a
// budget: its window's end; an abort: never by itself, resuming is a person's act; a ledger
// rebuilt blind: the window's end for a budget, a person's resume for unknown trips).
import type { AbortRule } from '../../policy/brakes-schema.js';
import { blindTo, tripOf, type Blind, type Charge, type LedgerState, type Trip } from './ledger.js';
import { counterEnd, describeMeter, formatWindow, type Subject } from './meters.js';
import type { Deferral } from '../../model/removal.js';

export type { Deferral };

/** The charge that did not fit, told as the ledger stands: a spent budget, or a window the ledger is blind to. */
export function chargeDeferral(state: LedgerState, ch: Charge, s: Subject): Deferral {
  return state.blind && blindTo(state, ch.counter) ? blindDeferral(state.blind, ch, s) : budgetDeferral(ch, s);
}

const blindWhy = (b: Blind): string => `the brakes' ledger was ${b.why} and rebuilt at ${new Date(b.at).toISOString()}`;

function blindDeferral(b: Blind, ch: Charge, s: Subject): Deferral {
  const d = budgetDeferral(ch, s);
  return {
    ...d,
    kind: 'ledger',
    why: `deferred: ${blindWhy(b)}; what ${describeMeter(ch.meter, s)} spent before then is unknown, so its window counts as spent; it frees by ${d.freesAt}`,
  };
}

/** What stops every removal under abort rules while the trips are unknown: a person's resume. */
function blindTrips(b: Blind): Deferral {
  return {
    kind: 'ledger',
    budget: 'kubeTidy.brakes.abort',
    scope: 'cluster',
    why: `deferred: ${blindWhy(b)}; the scopes an abort had stopped are unknown, so nothing is removed under the policy's abort rules until a person resumes with invoke's override`,
  };
}

/** The stop that holds back removals of `s`, if any: unknown trips, or a standing trip (core/ledger.ts tripOf). */
export function stopOf(state: LedgerState, rules: readonly AbortRule[], s: Subject, pass?: string): Deferral | undefined {
  if (rules.length > 0 && state.blind?.trips) return blindTrips(state.blind);
  const trip = tripOf(state, rules, s, pass);
  return trip ? tripDeferral(trip) : undefined;
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
