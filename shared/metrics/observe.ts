// From results to measurements, at the edges (never in the pure core, which eslint keeps
// free of this module): what a removal ended as, what a request answered, what the API server
// said. Each function reads a result the edge already has; none changes it, and each records
// into the recorder the edge was handed (its handle's, its host's: recorder.ts).
import type { Answer } from '../model/answer.js';
import type { MetricsRecorder } from './recorder.js';

/** One pod the pod-cleanup core selected, as the write ended (cleanup/io/act.ts). */
export function observeRemoval(
  m: MetricsRecorder,
  d: { strategy: string; profile: string; namespace: string; node?: string | undefined },
  r: { action: string; outcome: string; dryRun: boolean },
): void {
  // The descheduler's "success" for done; the other outcomes keep their own names.
  const result = r.outcome === 'deleted' || r.outcome === 'evicted' ? 'success' : r.outcome;
  m.record('podsEvicted', 1, {
    result,
    action: r.action,
    strategy: d.strategy,
    profile: d.profile,
    namespace: d.namespace,
    node: d.node ?? '',
    dry_run: String(r.dryRun),
  });
  // Under `kube-tidy descheduler`, the descheduler's counter too: success, or error for anything not removed.
  if (m.deschedulerNames) {
    m.record('deschedulerPodsEvicted', 1, {
      result: result === 'success' ? 'success' : 'error',
      strategy: d.strategy,
      profile: d.profile,
      namespace: d.namespace,
      node: d.node ?? '',
    });
  }
}

/** Where a brake held a removal back: pod cleanup's event path or a pass, a defrag step, an evacuation's start or an object's delete (through the admission port); a value, so docs/observing.md is held to it. */
export const DEFERRAL_PATHS = ['event', 'pass', 'defrag', 'evacuation', 'objects'] as const;
export type DeferralPath = (typeof DEFERRAL_PATHS)[number];

/** One object decision of cleanup beyond pods and what came of it (objects/io/pass.ts). */
export function observeObject(m: MetricsRecorder, r: { kind: string; rule: string; mode: string; outcome: string; namespace: string; dryRun: boolean }): void {
  m.record('objectsDecided', 1, { kind: r.kind, rule: r.rule, mode: r.mode, outcome: r.outcome, namespace: r.namespace, dry_run: String(r.dryRun) });
}

/** A pod a brake held back (brakes/io/tell.ts). */
export function observeDeferral(m: MetricsRecorder, d: { budget: string; scope: string }, path: DeferralPath, n = 1): void {
  m.record('budgetDeferred', n, { budget: d.budget, scope: d.scope, path });
}

/** Pods the due list or the timers refused because a bound was reached (shared/cleanup/due/io). */
export function observeDueRefused(m: MetricsRecorder, reason: 'list-full' | 'timers-full', n = 1): void {
  if (n > 0) m.record('dueRefused', n, { reason });
}

/** State kube-tidy keeps in the cluster found not as it wrote it (catalogue: stateUnreadable). */
export function observeStateUnreadable(
  m: MetricsRecorder,
  store: 'brakes-ledger' | 'due-list' | 'evacuation-slots' | 'lease',
  found: 'unreadable' | 'deleted' | 'replaced' | 'foreign',
  n = 1,
): void {
  if (n > 0) m.record('stateUnreadable', n, { store, found });
}

/** A pass the percentage abort stopped. */
export function observeAbort(m: MetricsRecorder, scope: string): void {
  m.record('budgetAborted', 1, { scope });
}

/**
 * The wrapper's own refusals, by reason: the same fixed names the production server's front
 * counts its refusals with (serve/http/refusals.ts), so one series shows a sender refused wherever.
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
 * One request the wrapper answered (serve/http/functions-framework.ts). `tick`: a scheduled full pass. `family`:
 * the target's own `observe`, for what its answer says (cascades, evacuations, ...).
 */
export function observeRequest<A extends Answer>(
  m: MetricsRecorder,
  target: string,
  status: number,
  seconds: number,
  answer: A | undefined,
  tick: boolean,
  family?: (answer: A, metrics: MetricsRecorder) => void,
): void {
  const code = String(status);
  m.record('requests', 1, {
    target,
    code,
    outcome: typeof answer?.outcome === 'string' ? answer.outcome : status >= 500 ? 'error' : (REFUSAL_REASONS[status] ?? 'rejected'),
  });
  m.record('requestDuration', seconds, { target, code });
  if (tick && answer) m.record('loopDuration', seconds, { target });
  if (answer) family?.(answer, m);
}

/** A Kubernetes API request as it is sent (kube/request-lifecycle.ts); `host`: the cluster's, as `apiHost` gives it. */
export function observeApiRequest(m: MetricsRecorder, method: string, host: string): void {
  m.record('apiRequests', 1, { method, host });
}

/** The API server's answer to one (a response carries no method or URL: the cluster's host). */
export function observeApiResponse(m: MetricsRecorder, host: string, status: number): void {
  m.record('apiResponses', 1, { host, code: String(status) });
}

/** The metrics' `host` label of a cluster's URL: worked out once per set of clients, not per request. */
export function apiHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'unknown';
  }
}
