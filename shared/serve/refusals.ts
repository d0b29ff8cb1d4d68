// Every request the front (front.ts) refuses, made visible: counted in
// kube_tidy_requests_total{target,code,outcome} with `outcome` the reason (a fixed set, so the
// label stays bounded), and logged with the sender's subject when the verifier knew it (never
// the token). The log is sampled: the first LOG_PER_WINDOW refusals per reason per minute get
// a line each; the rest are counted and said in one summary line when the next window opens,
// so a flood of bad requests cannot fill the log. The counter counts every one.
import type { Logger } from '../log.js';
import { record } from '../metrics/record.js';

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

/** A sink that counts every refusal for `target` and logs a sample of them on `log`. */
export function refusalSink(target: string, log: Logger, now: () => number = Date.now): RefusalSink {
  const windows = new Map<RefusalReason, { start: number; logged: number; suppressed: number }>();
  return ({ status, reason, why, subject }) => {
    try {
      record('requests', 1, { target, code: String(status), outcome: reason });
    } catch {
      // Metrics are never the answer's problem.
    }
    const t = now();
    let w = windows.get(reason);
    if (!w || t - w.start >= WINDOW_MS) {
      if (w) summarise(reason, w);
      windows.set(reason, (w = { start: t, logged: 0, suppressed: 0 }));
    }
    if (w.logged < LOG_PER_WINDOW) {
      w.logged++;
      // `why` is built by the verifier from claims, never from the token itself.
      log.warn({ target, status, reason, why, ...(subject !== undefined ? { subject } : {}) }, 'refused');
    } else if (w.suppressed++ === 0) {
      // The summary also comes when the flood stops: at the window's end (never keeping the process up).
      const ended = w;
      setTimeout(() => summarise(reason, ended), Math.max(0, ended.start + WINDOW_MS - t)).unref();
    }
  };
  function summarise(reason: RefusalReason, w: { suppressed: number }): void {
    if (!w.suppressed) return;
    log.warn({ target, reason, suppressed: w.suppressed, windowSeconds: WINDOW_MS / 1000 }, 'refusals not logged one by one');
    w.suppressed = 0;
  }
}
