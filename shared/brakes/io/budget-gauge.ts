// The budget gauge (kube_tidy_budget_remaining) from the shared ledger, computed where the ledger
// is read and written. It lives with the brakes, not in metrics/: the recorder stands below kube/
// and the brakes (infra/lint/floors.js), and reading the ledger's shape is the brakes' knowledge.
import type { LedgerState } from '../core/ledger.js';
import { windowStart, type Meter } from '../core/meters.js';
import { MAX_LENGTH, MAX_VALUES, OTHER } from '../../metrics/bound.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';

/**
 * What each budget still allows, from the shared ledger as just read or written
 * (brakes/io/brakes.ts): per meter of the policy, its max minus what the ledger counts in the
 * current window (removals confirmed plus units any instance holds, as the ledger's `used`; a
 * hold that expired counts in full, as it is charged). The cluster's always; a namespace's,
 * node's or owner's for the keys the ledger holds, and a key once shown goes back to its full
 * max when the ledger no longer holds it (its window rolled over). Keys are bounded as every
 * label is (bound.ts): the first MAX_VALUES - 1 are kept, `_other` shows the lowest of the
 * rest. One pass over the ledger; only values that changed reach the SDK. Into `metrics` (the
 * brakes' recorder, the host's), which keeps what each series was last set to. Never throws.
 */
export function observeBudgets(metrics: MetricsRecorder, meters: readonly Meter[], state: LedgerState, now: number): void {
  if (meters.length === 0) return;
  try {
    // The counters of each meter's current window (`scope|windowMs|start|key`, meters.ts), by prefix: key -> used.
    const current = new Map<string, Map<string, number>>();
    const prefixOf = (m: Meter) => `${m.scope}|${m.windowMs}|${windowStart(now, m.windowMs)}|`;
    for (const m of meters) current.set(prefixOf(m), new Map());
    const count = (counter: string, n: unknown) => {
      if (typeof n !== 'number' || !(n > 0)) return;
      const cut = thirdBar(counter);
      const keys = cut < 0 ? undefined : current.get(counter.slice(0, cut + 1));
      if (!keys) return;
      const key = counter.slice(cut + 1);
      keys.set(key, (keys.get(key) ?? 0) + n);
    };
    for (const c in state.counts) count(c, state.counts[c]);
    for (const holder in state.holds) {
      const grants = state.holds[holder]?.grants ?? {};
      for (const c in grants) count(c, grants[c]);
    }
    // The keys already shown per budget and scope, with their values, and every key value in
    // use (bounded per label, not per budget).
    const shown = new Map<string, Map<string, number>>();
    const keys = new Set<string>();
    for (const { labels, value } of metrics.gaugeSeries('budgetRemaining')) {
      const id = `${labels.budget}\0${labels.scope}`;
      let values = shown.get(id);
      if (!values) shown.set(id, (values = new Map()));
      values.set(labels.key!, value);
      if (labels.key !== OTHER) keys.add(labels.key!);
    }
    for (const m of meters) {
      const used = current.get(prefixOf(m))!;
      const left = new Map<string, number>();
      // A window the ledger was rebuilt blind in is spent whatever it counts (brakes/core/ledger.ts).
      const blind = state.blind !== undefined && windowStart(now, m.windowMs) <= state.blind.at;
      const set = (key: string, n: number) => left.set(key, blind ? 0 : Math.min(left.get(key) ?? Infinity, Math.max(0, m.max - n)));
      if (m.scope === 'cluster') set('', used.get('') ?? 0);
      else {
        for (const [raw, n] of used) {
          const key = raw.length > MAX_LENGTH ? raw.slice(0, MAX_LENGTH) : raw;
          if (!keys.has(key) && keys.size >= MAX_VALUES - 1) set(OTHER, n);
          else {
            keys.add(key);
            set(key, n);
          }
        }
      }
      const before = shown.get(`${m.name}\0${m.scope}`);
      for (const key of before?.keys() ?? []) if (!left.has(key)) left.set(key, blind ? 0 : m.max);
      for (const [key, n] of left) if (before?.get(key) !== n) metrics.record('budgetRemaining', n, { budget: m.name, scope: m.scope, key });
    }
  } catch {
    // Never expected (the ledger is read strictly, brakes/io/store.ts); the gauge waits for the next read.
  }
}

/** Where a counter's key starts (after `scope|windowMs|start|`), or -1. */
function thirdBar(counter: string): number {
  let i = -1;
  for (let n = 0; n < 3; n++) if ((i = counter.indexOf('|', i + 1)) < 0) return -1;
  return i;
}
