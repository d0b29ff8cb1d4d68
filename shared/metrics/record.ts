// The recording side every edge calls (the wrapper, the writer's callers, the client
// middleware). It imports nothing heavy: the OpenTelemetry SDK (sdk.ts) is loaded on first
// need, so a cold start answers its first request without paying for it. Until it is
// loaded, measurements wait in a bounded queue and are replayed into it, so nothing recorded
// before the load is lost (past MAX_PENDING they are counted as dropped, never kept).
// A gauge is set only when its value changed: what each series was last set to is kept here
// (the SDK would export the same), so an edge may set all its series often and pay little.
import { LabelBound } from './bound.js';
import { METRICS, type MetricKey } from './catalogue.js';
import { pushes } from './push-env.js';
import type { Sdk } from './sdk.js';

const MAX_PENDING = 10_000;

type Op = [key: MetricKey, value: number, labels: Record<string, string>];

let sdk: Sdk | undefined;
let loading: Promise<Sdk> | undefined;
let pending: Op[] = [];
let bound = new LabelBound();
let dropped = 0;

export interface GaugeSeries {
  /** As bounded (bound.ts): what the series is exported with. */
  labels: Record<string, string>;
  value: number;
}
let gauges = new Map<MetricKey, Map<string, GaugeSeries>>();

/** Adds `value` to a counter, records it in a histogram, or sets a gauge to it. Never throws. */
export function record(key: MetricKey, value: number, labels: Record<string, string> = {}): void {
  const bounded = bound.bound(key, labels);
  if (METRICS[key].kind === 'gauge' && !changes(key, value, bounded)) return;
  if (sdk) sdk.add(key, value, bounded);
  else if (pending.length < MAX_PENDING) pending.push([key, value, bounded]);
  else dropped++;
}

/** Whether setting gauge `key`'s series to `value` changes it (and remembers it if so). */
function changes(key: MetricKey, value: number, labels: Record<string, string>): boolean {
  let series = gauges.get(key);
  if (!series) gauges.set(key, (series = new Map()));
  const id = (METRICS[key].labels as readonly string[]).map((l) => labels[l] ?? '').join('\0');
  if (series.get(id)?.value === value) return false;
  series.set(id, { labels, value });
  return true;
}

/** Every series of gauge `key` with the value it was last set to. */
export function gaugeSeries(key: MetricKey): GaugeSeries[] {
  return [...(gauges.get(key)?.values() ?? [])];
}

/** The SDK, loaded once; what waited in the queue is recorded into it first. */
export function loadSdk(env: NodeJS.ProcessEnv = process.env): Promise<Sdk> {
  loading ??= import('./sdk.js').then(({ startSdk }) => {
    const started = startSdk(env);
    for (const [key, value, labels] of pending) started.add(key, value, labels);
    pending = [];
    sdk = started;
    return started;
  });
  return loading;
}

/** After a failed or slow push, how long pushes are skipped: doubled while it keeps failing, up to the max. */
export interface PushBackoff {
  retryMs?: number;
  maxRetryMs?: number;
}
const RETRY_MS = 30_000;
const MAX_RETRY_MS = 300_000;
let skipUntil = 0;
let failedInARow = 0;

/**
 * At the end of a request, before it is answered. Pushing: export now, so an instance scaled
 * to zero (or with its CPU throttled once it has answered) loses nothing; at most `capMs`
 * (an unreachable collector must not hold the answer up; the next flush sends it all again,
 * counters are cumulative). After a push that failed or took the whole cap, the next ones are
 * skipped (the SDK keeps counting) until a retry interval passes (30 s, doubled while it keeps
 * failing, at most 5 min; a push that succeeds resets it): a collector that is down costs once
 * per interval, not per answer. Each attempt or skip counts in kube_tidy_metrics_pushes_total.
 * Not pushing: start loading the SDK after the answer is sent, so a scrape finds it ready and
 * the queue stays short.
 */
export async function afterRequest(capMs = 2_000, backoff: PushBackoff = {}): Promise<void> {
  if (!pushes()) {
    setImmediate(() => void loadSdk().catch(() => undefined));
    return;
  }
  if (Date.now() < skipUntil) {
    record('metricsPushes', 1, { result: 'skipped' });
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  let result: 'ok' | 'failed' | 'slow' = 'failed';
  try {
    // Loading is local work; only the network wait is capped.
    const sdk = await loadSdk();
    const cap = new Promise<'slow'>((resolve) => (timer = setTimeout(() => resolve('slow'), capMs)));
    result = await Promise.race([sdk.flush().then(() => 'ok' as const), cap]);
  } catch {
    // A push that failed is retried later (cumulative counters): never the request's problem.
    result = 'failed';
  } finally {
    clearTimeout(timer);
  }
  if (result === 'ok') {
    failedInARow = 0;
    skipUntil = 0;
  } else {
    const base = backoff.retryMs ?? RETRY_MS;
    const wait = Math.min(base * 2 ** Math.min(failedInARow, 30), backoff.maxRetryMs ?? MAX_RETRY_MS);
    failedInARow++;
    skipUntil = Date.now() + wait;
  }
  // Counted now, pushed with the next flush.
  record('metricsPushes', 1, { result });
}

/** Measurements dropped because the queue was full before the SDK loaded. */
export const droppedBeforeLoad = (): number => dropped;

/** Tests: forget everything (a fresh SDK on next load). */
export async function resetForTests(): Promise<void> {
  const old = sdk;
  sdk = undefined;
  loading = undefined;
  pending = [];
  bound = new LabelBound();
  gauges = new Map();
  dropped = 0;
  skipUntil = 0;
  failedInARow = 0;
  // A provider pushing to a collector that does not answer would wait for its export timeout.
  await Promise.race([old?.shutdown(), new Promise((r) => setTimeout(r, 500))]);
}
