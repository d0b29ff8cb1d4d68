// The end of one request the resolver answered: its metrics, then what the process still has to
// send before a serverless instance may be frozen. Here in serve/, the one caller, because it
// joins two rooms: the recorder (metrics/) stands below the outbox (notify/), which counts its
// drops with it, so the recorder may not reach up to flush the outbox (infra/lint/floors.js).
import type { Answer } from '../model/answer.js';
import { observeRequest } from '../metrics/observe.js';
import type { MetricsRecorder } from '../metrics/recorder.js';
import type { Notifier } from '../notify/notifier.js';

/**
 * observeRequest into the process's recorder (`metrics`), then the CloudEvents still queued in
 * the process's outbox (`notifier`), then the push when this process pushes (recorder.ts). Never throws.
 */
export async function requestDone<A extends Answer>(
  { notifier, metrics }: { notifier: Notifier; metrics: MetricsRecorder },
  target: string,
  status: number,
  startedMs: number,
  answer: A | undefined,
  tick: boolean,
  family?: (answer: A, metrics: MetricsRecorder) => void,
): Promise<void> {
  try {
    observeRequest(metrics, target, status, (Date.now() - startedMs) / 1000, answer, tick, family);
  } catch {
    // An answer of an unexpected shape: its metrics are lost, never the answer.
  }
  // The decisions' CloudEvents first (at most EVENTS_FLUSH_MS, not while the sink is down or slow), so the push counts them.
  await notifier.flush();
  await metrics.afterRequest();
}
