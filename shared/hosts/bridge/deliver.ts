// Delivering one CloudEvent to the sink with retries, as a Knative Trigger's delivery does:
// retry on no response, timeouts, 5xx, 404, 408, 409 and 429, with exponential backoff and
// jitter, up to a limit; any other non-2xx means the sink refuses this event and a retry
// would get the same answer, so it is dropped as rejected.
//
// The event (and so its id) is built once per watch event and re-sent unchanged on retries:
// Knative's adapter sets a fresh UUID once per event before sending, and CloudEvents says a
// re-sent duplicate may keep its id. Consumers must not rely on it either way: de-duplicate
// on the object's uid/resourceVersion.
import { setLongTimeout, timeoutSignal } from '../../config/long-timeout.js';
import type { CloudEvent } from 'cloudevents';
import { httpMessage } from '../../cloudevents/encode.js';

export interface RetryPolicy {
  /** Retries after the first attempt (Knative's delivery.retry). */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Per attempt; a timed-out attempt is retried like a network error. */
  timeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 5, baseDelayMs: 250, maxDelayMs: 10_000, timeoutMs: 10_000 };

export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 404 || status === 408 || status === 409 || status === 429;
}

/** What one attempt ended with: a status, or no response at all. */
export type Attempt = { status: number; retryAfterMs?: number; body?: string } | { error: string; timedOut: boolean };

export function classify(a: Attempt): 'delivered' | 'retry' | 'reject' {
  if (!('status' in a)) return 'retry';
  if (a.status >= 200 && a.status < 300) return 'delivered';
  return isRetryableStatus(a.status) ? 'retry' : 'reject';
}

/**
 * Delay before retry number `retry` (1-based): base * 2^(retry-1), capped, with "equal
 * jitter" so it lies in [d/2, d) and concurrent senders spread out. A sink's Retry-After is
 * honoured up to the cap.
 */
export function backoffDelay(retry: number, policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, random: () => number, retryAfterMs = 0): number {
  const d = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  const jittered = d / 2 + (random() * d) / 2;
  return Math.min(policy.maxDelayMs, Math.max(jittered, retryAfterMs));
}

export interface DeliveryResult {
  outcome: 'delivered' | 'rejected' | 'failed' | 'aborted';
  attempts: number;
  /** The last status seen, if any response came. */
  status?: number;
  /** The last network error, or what the sink said when it answered non-2xx (truncated). */
  error?: string;
}

export interface RetryOptions {
  policy?: RetryPolicy;
  /** Aborting stops retrying and cancels the attempt in flight (shutdown deadline). */
  signal?: AbortSignal;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  onRetry?: (info: { attempt: Attempt; retry: number; delayMs: number }) => void;
}

export interface DeliverOptions extends RetryOptions {
  sink: string;
  mode?: 'binary' | 'structured';
  fetch?: typeof fetch;
}

/** One CloudEvent POSTed to `o.sink`, with the retries below. */
export async function deliver(event: CloudEvent<unknown>, o: DeliverOptions): Promise<DeliveryResult> {
  const policy = o.policy ?? DEFAULT_RETRY;
  const { headers, body } = httpMessage(event, o.mode);
  return deliverWith((signal) => post(o.fetch ?? fetch, o.sink, headers, body, policy.timeoutMs, signal), o);
}

/**
 * The delivery rules (which answers are retried, backoff, abort) around any attempt: an HTTP
 * POST (`deliver`), or a call in process (the standalone program hands the watch's objects
 * and its ticks to the targets without HTTP: standalone/dispatch.ts).
 */
export async function deliverWith(attemptOnce: (signal?: AbortSignal) => Promise<Attempt>, o: RetryOptions = {}): Promise<DeliveryResult> {
  const policy = o.policy ?? DEFAULT_RETRY;
  const sleep = o.sleep ?? abortableSleep;
  const random = o.random ?? Math.random;
  let last: Attempt | undefined;
  for (let attempt = 1; ; attempt++) {
    if (o.signal?.aborted) return { outcome: 'aborted', attempts: attempt - 1, ...describe(last) };
    last = await attemptOnce(o.signal);
    const verdict = classify(last);
    if (verdict === 'delivered') return { outcome: 'delivered', attempts: attempt, ...describe(last) };
    if (verdict === 'reject') return { outcome: 'rejected', attempts: attempt, ...describe(last) };
    if (o.signal?.aborted) return { outcome: 'aborted', attempts: attempt, ...describe(last) };
    if (attempt > policy.retries) return { outcome: 'failed', attempts: attempt, ...describe(last) };
    const delayMs = backoffDelay(attempt, policy, random, 'retryAfterMs' in last ? last.retryAfterMs : 0);
    o.onRetry?.({ attempt: last, retry: attempt, delayMs });
    await sleep(delayMs, o.signal);
  }
}

function describe(a: Attempt | undefined): Pick<DeliveryResult, 'status' | 'error'> {
  if (a === undefined) return {};
  if ('status' in a) return a.body ? { status: a.status, error: a.body } : { status: a.status };
  return { error: a.error };
}

async function post(f: typeof fetch, url: string, headers: Record<string, string>, body: string, timeoutMs: number, outer?: AbortSignal): Promise<Attempt> {
  // --timeout is any Go duration: AbortSignal.timeout would abort at once past 2^31-1 ms.
  const timeout = timeoutSignal(timeoutMs);
  const signal = outer ? AbortSignal.any([outer, timeout]) : timeout;
  try {
    const res = await f(url, { method: 'POST', headers, body, signal });
    // Always read the body so the connection can be reused; keep it only to explain a refusal.
    const text = await res.text().catch(() => '');
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
    return {
      status: res.status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(res.ok || text === '' ? {} : { body: text.slice(0, 300) }),
    };
  } catch (e) {
    const timedOut = timeout.aborted && !outer?.aborted;
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const error = timedOut ? `no answer within ${timeoutMs} ms` : (cause?.code ?? cause?.message ?? (e as Error).message);
    return { error, timedOut };
  }
}

/** Retry-After in seconds (the HTTP-date form is rare from sinks and is ignored). */
export function parseRetryAfter(v: string | null): number | undefined {
  if (v === null || !/^\d+$/.test(v.trim())) return undefined;
  return Number(v.trim()) * 1000;
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setLongTimeout(done, ms);
    function done() {
      t.clear();
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
