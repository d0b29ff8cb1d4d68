// From results to measurements, at the edges (never in the pure core, which eslint keeps
// free of this module): what a removal ended as, what a request answered, what the API server
// said. Each function reads a result the edge already has; none changes it.
import type { Answer } from '../serve/target.js';
import { afterRequest, record } from './record.js';

/** One pod the pod-cleanup core selected, as the write ended (cleanup/io/act.ts). */
export function observeRemoval(d: { strategy: string; profile: string; namespace: string; node?: string | undefined }, r: { action: string; outcome: string; dryRun: boolean }): void {
  // The descheduler's "success" for done; the other outcomes keep their own names.
  const result = r.outcome === 'deleted' || r.outcome === 'evicted' ? 'success' : r.outcome;
  record('podsEvicted', 1, { result, action: r.action, strategy: d.strategy, profile: d.profile, namespace: d.namespace, node: d.node ?? '', dry_run: String(r.dryRun) });
}

/** A pod a brake held back (cleanup/io/brakes.ts): on the event path, or in a pass. */
export function observeDeferral(d: { budget: string; scope: string }, path: 'event' | 'pass', n = 1): void {
  record('budgetDeferred', n, { budget: d.budget, scope: d.scope, path });
}

/** A pass the percentage abort stopped. */
export function observeAbort(scope: string): void {
  record('budgetAborted', 1, { scope });
}

/**
 * One request the wrapper answered (serve/handle.ts). `tick`: a scheduled full pass. `family`:
 * the target's own `observe`, for what its answer says (cascades, evacuations, ...).
 */
export function observeRequest(target: string, status: number, seconds: number, answer: Answer | undefined, tick: boolean, family?: (answer: Answer) => void): void {
  const code = String(status);
  record('requests', 1, { target, code, outcome: typeof answer?.outcome === 'string' ? answer.outcome : status >= 500 ? 'error' : 'rejected' });
  record('requestDuration', seconds, { target, code });
  if (tick && answer) record('loopDuration', seconds, { target });
  if (answer) family?.(answer);
}

/** observeRequest, then the push when this process pushes (record.ts). Never throws. */
export async function requestDone(target: string, status: number, startedMs: number, answer: Answer | undefined, tick: boolean, family?: (answer: Answer) => void): Promise<void> {
  try {
    observeRequest(target, status, (Date.now() - startedMs) / 1000, answer, tick, family);
  } catch {
    // An answer of an unexpected shape: its metrics are lost, never the answer.
  }
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
