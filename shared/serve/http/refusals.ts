// Every request the front (front.ts) refuses, made visible: counted in
// kube_tidy_requests_total{target,code,outcome} with `outcome` the reason (a fixed set, so the
// label stays bounded), and logged with the sender's subject when the verifier knew it (never
// the token). The log is sampled: the first LOG_PER_WINDOW refusals per reason per minute get
// a line each; the rest are counted and said in one summary line when the next window opens,
// so a flood of bad requests cannot fill the log. The counter counts every one.
import type { Logger } from '../../log.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import { logSampler } from '../../metrics/sampled-log.js';

/** The fixed reasons, by status: the `outcome` label of a refusal. */
export type RefusalReason = 'unauthenticated' | 'sender-check-unavailable' | 'too-large' | 'encoding';

export const LOG_PER_WINDOW = 5;
const WINDOW_MS = 60_000;

export interface Refusal {
  status: number;
  reason: RefusalReason;
  why: string;
  subject?: string | undefined;
}

export type RefusalSink = (r: Refusal) => void;

/** A sink that counts every refusal for `target` in `metrics` (the process's recorder) and logs a sample of them on `log`. */
export function refusalSink(metrics: MetricsRecorder, target: string, log: Logger, now: () => number = Date.now): RefusalSink {
  const sampled = logSampler<RefusalReason>({
    perWindow: LOG_PER_WINDOW,
    windowMs: WINDOW_MS,
    now,
    summary: (reason, suppressed) => log.warn({ target, reason, suppressed, windowSeconds: WINDOW_MS / 1000 }, 'refusals not logged one by one'),
  });
  return ({ status, reason, why, subject }) => {
    try {
      metrics.record('requests', 1, { target, code: String(status), outcome: reason });
    } catch {
      // Metrics are never the answer's problem.
    }
    // `why` is built by the verifier from claims, never from the token itself.
    if (sampled(reason)) log.warn({ target, status, reason, why, ...(subject !== undefined ? { subject } : {}) }, 'refused');
  };
}
