// From results to measurements, at the edges (never in the pure core, which eslint keeps
// free of this module): what a removal ended as, what a request answered, what the API server
// said. Each function reads a result the edge already has; none changes it.
import type { LedgerState } from '../brakes/core/ledger.js';
import { windowStart, type Meter } from '../brakes/core/meters.js';
import type { Answer } from '../serve/answer.js';
import { MAX_LENGTH, MAX_VALUES, OTHER } from './bound.js';
import { afterRequest, gaugeSeries, record } from './record.js';
import { flushEvents } from '../notify/process.js';

/** One pod the pod-cleanup core selected, as the write ended (cleanup/io/act.ts). */
export function observeRemoval(
  d: { strategy: string; profile: string; namespace: string; node?: string | undefined },
  r: { action: string; outcome: string; dryRun: boolean },
): void {
  // The descheduler's "success" for done; the other outcomes keep their own names.
  const result = r.outcome === 'deleted' || r.outcome === 'evicted' ? 'success' : r.outcome;
  record('podsEvicted', 1, {
    result,
    action: r.action,
    strategy: d.strategy,
    profile: d.profile,
    namespace: d.namespace,
    node: d.node ?? '',
    dry_run: String(r.dryRun),
  });
}

/** Where a brake held a pod back: pod cleanup's event path or a pass, or a defrag step (through the admission port). */
export type DeferralPath = 'event' | 'pass' | 'defrag' | 'evacuation';

/** A pod a brake held back (brakes/io/tell.ts). */
export function observeDeferral(d: { budget: string; scope: string }, path: DeferralPath, n = 1): void {
  record('budgetDeferred', n, { budget: d.budget, scope: d.scope, path });
}

/** Pods the due list or the timers refused because a bound was reached (shared/due/io). */
export function observeDueRefused(reason: 'list-full' | 'timers-full', n = 1): void {
  if (n > 0) record('dueRefused', n, { reason });
}

/** State kube-tidy keeps in the cluster found not as it wrote it (catalogue: stateUnreadable). */
export function observeStateUnreadable(
  store: 'brakes-ledger' | 'due-list' | 'evacuation-slots' | 'lease',
  found: 'unreadable' | 'deleted' | 'replaced',
  n = 1,
): void {
  if (n > 0) record('stateUnreadable', n, { store, found });
}

/** A pass the percentage abort stopped. */
export function observeAbort(scope: string): void {
  record('budgetAborted', 1, { scope });
}

/**
 * What each budget still allows, from the shared ledger as just read or written
 * (brakes/io/brakes.ts): per meter of the policy, its max minus what the ledger counts in the
 * current window (removals confirmed plus units any instance holds, as the ledger's `used`; a
 * hold that expired counts in full, as it is charged). The cluster's always; a namespace's,
 * node's or owner's for the keys the ledger holds, and a key once shown goes back to its full
 * max when the ledger no longer holds it (its window rolled over). Keys are bounded as every
 * label is (bound.ts): the first MAX_VALUES - 1 are kept, `_other` shows the lowest of the
 * rest. One pass over the ledger; only values that changed reach the SDK. Never throws.
 */
export function observeBudgets(meters: readonly Meter[], state: LedgerState, now: number): void {
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
    for (const { labels, value } of gaugeSeries('budgetRemaining')) {
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
      for (const [key, n] of left) if (before?.get(key) !== n) record('budgetRemaining', n, { budget: m.name, scope: m.scope, key });
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

/**
 * The wrapper's own refusals, by reason: the same fixed names the production server's front
 * counts its refusals with (serve/refusals.ts), so one series shows a sender refused wherever.
 */
const REFUSAL_REASONS: Record<number, string> = {
  400: 'bad-input',
  401: 'unauthenticated',
  403: 'forbidden',
  405: 'method',
  413: 'too-large',
  415: 'encoding',
  422: 'not-accepted',
};

/**
 * One request the wrapper answered (serve/handle.ts). `tick`: a scheduled full pass. `family`:
 * the target's own `observe`, for what its answer says (cascades, evacuations, ...).
 */
export function observeRequest<A extends Answer>(
  target: string,
  status: number,
  seconds: number,
  answer: A | undefined,
  tick: boolean,
  family?: (answer: A) => void,
): void {
  const code = String(status);
  record('requests', 1, {
    target,
    code,
    outcome: typeof answer?.outcome === 'string' ? answer.outcome : status >= 500 ? 'error' : (REFUSAL_REASONS[status] ?? 'rejected'),
  });
  record('requestDuration', seconds, { target, code });
  if (tick && answer) record('loopDuration', seconds, { target });
  if (answer) family?.(answer);
}

/** observeRequest, then the CloudEvents still queued (notify/process.ts), then the push when this process pushes (record.ts). Never throws. */
export async function requestDone<A extends Answer>(
  target: string,
  status: number,
  startedMs: number,
  answer: A | undefined,
  tick: boolean,
  family?: (answer: A) => void,
): Promise<void> {
  try {
    observeRequest(target, status, (Date.now() - startedMs) / 1000, answer, tick, family);
  } catch {
    // An answer of an unexpected shape: its metrics are lost, never the answer.
  }
  // The decisions' CloudEvents first (at most EVENTS_FLUSH_MS, not while the sink is down or slow), so the push counts them.
  await flushEvents();
  await afterRequest();
}

/** A Kubernetes API request as it is sent (kube/clients.ts's middleware); `server`: the cluster's URL. */
export function observeApiRequest(method: string, server: string): void {
  record('apiRequests', 1, { method, host: hostOf(server) });
}

/** The API server's answer to one (a response carries no method or URL: the cluster's URL). */
export function observeApiResponse(server: string, status: number): void {
  record('apiResponses', 1, { host: hostOf(server), code: String(status) });
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'unknown';
  }
}
