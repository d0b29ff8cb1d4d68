// What a removal is charged to. A meter is a limit ("at most N per W in each S"); a counter is
// a fact ("removals in scope key K during the window starting at T, of length W"). Meters of
// the same scope and window length read the same counters: the descheduler's
// maxNoOfPodsToEvictTotal and a cluster rate of the same window count the same removals, so
// editing a policy (reordering its rates, changing a max) never resets what was spent.
import type { Subject } from '../../model/removal.js';
import { DEFAULT_BRAKES, type BrakeScope, type RemovalKind } from '../../policy/brakes-schema.js';
import type { Policy } from '../../policy/policy.js';

// The subject's type and how a pod's is read are the model's (model/removal.ts), shared with the admission port.
export { subjectOf, type Subject } from '../../model/removal.js';

export type MeterScope = BrakeScope | 'node';

export interface Meter {
  scope: MeterScope;
  max: number;
  windowMs: number;
  /** The setting it comes from, as the user wrote it: said in every deferral. */
  name: string;
  /** What it counts (absent: pods): the descheduler's limits count pods only; a rate, its `kinds` (pods by default). */
  kinds?: readonly RemovalKind[];
}

/** Every meter of a policy: the descheduler's limits over `brakes.window`, then its rates. */
export function metersOf(policy: Policy): Meter[] {
  const brakes = policy.brakes ?? DEFAULT_BRAKES;
  const w = brakes.window;
  const out: Meter[] = [];
  const { total, perNamespace, perNode } = policy.limits;
  const pods: RemovalKind[] = ['Pod'];
  if (total !== undefined) out.push({ scope: 'cluster', max: total, windowMs: w, name: 'maxNoOfPodsToEvictTotal', kinds: pods });
  if (perNamespace !== undefined) out.push({ scope: 'namespace', max: perNamespace, windowMs: w, name: 'maxNoOfPodsToEvictPerNamespace', kinds: pods });
  if (perNode !== undefined) out.push({ scope: 'node', max: perNode, windowMs: w, name: 'maxNoOfPodsToEvictPerNode', kinds: pods });
  brakes.rates.forEach((r, i) => out.push({ scope: r.scope, max: r.max, windowMs: r.per, name: `kubeTidy.brakes.rates[${i}]`, kinds: r.kinds }));
  return out;
}

/** The subject's key in a scope; undefined when the scope does not apply to it. */
export function scopeKey(scope: MeterScope, s: Subject): string | undefined {
  const key = podScopeKey(scope, s);
  // An object's removals are counted apart from the pods' (scopes per kind): `Job:ml` is not `ml`.
  // A pod's key is unchanged, so a ledger written before kinds existed reads the same.
  return key === undefined || s.kind === undefined ? key : `${s.kind}:${key}`;
}

function podScopeKey(scope: MeterScope, s: Subject): string | undefined {
  switch (scope) {
    case 'cluster':
      return '';
    case 'namespace':
      return s.namespace;
    case 'node':
      return s.node;
    case 'owner':
      return s.owner;
  }
}

/** Windows are fixed and aligned to the epoch, so every instance agrees on them without talking. */
export const windowStart = (now: number, windowMs: number): number => Math.floor(now / windowMs) * windowMs;

/**
 * The counter a meter charges for `s` at `now`: `scope|windowMs|start|key`. Parsed back by
 * counterEnd, which lets any instance drop counters whose window is over.
 */
export function counterOf(m: Meter, s: Subject, now: number): string | undefined {
  if (!(m.kinds ?? ['Pod']).includes(s.kind ?? 'Pod')) return undefined;
  const key = scopeKey(m.scope, s);
  return key === undefined ? undefined : `${m.scope}|${m.windowMs}|${windowStart(now, m.windowMs)}|${key}`;
}

/** When a counter's window began (ms), or NaN for a key that is not a counter. */
export function counterStart(counter: string): number {
  return Number(counter.split('|', 3)[2]);
}

/** When a counter's window ends (ms), or NaN for a key that is not a counter. */
export function counterEnd(counter: string): number {
  const [, w, start] = counter.split('|', 3);
  return Number(start) + Number(w);
}

/** Human words for a meter: "maxNoOfPodsToEvictPerNamespace (5 per 15m in namespace ml)". */
export function describeMeter(m: Meter, s: Subject): string {
  // Said as a person reads it: the key without its kind, the kind named ("Job removals").
  const key = podScopeKey(m.scope, s);
  const where = m.scope === 'cluster' ? 'in the cluster' : `in ${m.scope} ${key}`;
  const what = s.kind ? ` ${s.kind} removals` : '';
  return `${m.name} (${m.max}${what} per ${formatWindow(m.windowMs)} ${where})`;
}

export function formatWindow(ms: number): string {
  const s = ms / 1000;
  if (s % 3600 === 0) return `${s / 3600}h`;
  if (s % 60 === 0) return `${s / 60}m`;
  return `${s}s`;
}
