// What a held-back pod is told, pure: which budget, its scope and limit, and when it frees (a
// budget: its window's end; an abort: never by itself, resuming is a person's act).
import type { Charge, Trip } from './ledger.js';
import { counterEnd, describeMeter, formatWindow, type Subject } from './meters.js';

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
