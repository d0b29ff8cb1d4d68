// The recording side every edge calls (the wrapper, the writer's callers, the client
// middleware), as one object the host builds at start (the runtime for a server, standalone
// or framework process; the CLI program for its handle) and hands down: the handles, the
// clients' middleware, the writer's refusals and the brakes carry it. Nothing is kept by the
// module, so two runtimes in one process record apart and a test needs no reset.
// It imports nothing heavy: the OpenTelemetry SDK (sdk.ts) is loaded on first need, so a cold
// start answers its first request without paying for it. Until it is loaded, measurements
// wait in a bounded queue and are replayed into it, so nothing recorded before the load is
// lost (past MAX_PENDING they are counted as dropped, never kept).
// A gauge is set only when its value changed: what each series was last set to is kept here
// (the SDK would export the same), so an edge may set all its series often and pay little.
import { LabelBound } from './bound.js';
import { METRICS, type MetricKey } from './catalogue.js';
import { pushes } from './push-env.js';
import type { Sdk } from './sdk.js';

const MAX_PENDING = 10_000;

type Op = [key: MetricKey, value: number, labels: Record<string, string>];

export interface GaugeSeries {
  /** As bounded (bound.ts): what the series is exported with. */
  labels: Record<string, string>;
  value: number;
}

/** After a failed or slow push, how long pushes are skipped: doubled while it keeps failing, up to the max. */
export interface PushBackoff {
  retryMs?: number;
  maxRetryMs?: number;
}
const RETRY_MS = 30_000;
const MAX_RETRY_MS = 300_000;

export class MetricsRecorder {
  private sdk: Sdk | undefined;
  private loading: Promise<Sdk> | undefined;
  private pending: Op[] = [];
  private readonly bound = new LabelBound();
  private dropped = 0;
  private readonly gauges = new Map<MetricKey, Map<string, GaugeSeries>>();
  private skipUntil = 0;
  private failedInARow = 0;
  /**
   * Also export the descheduler's own series (catalogue.ts descheduler*) where kube-tidy's are
   * recorded: set by `kube-tidy descheduler`, whose users' dashboards read those names.
   */
  deschedulerNames = false;

  /**
   * `env`: the environment the process started with; whether it pushes over OTLP, and where,
   * is read from it (push-env.ts, sdk.ts). `on` false: a recorder that records nothing (off).
   */
  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly on = true,
  ) {}

  /** Records nothing: for what is built outside a host (a writer or clients a test builds bare). */
  static off(): MetricsRecorder {
    return new MetricsRecorder({}, false);
  }

  /** Adds `value` to a counter, records it in a histogram, or sets a gauge to it. Never throws. */
  record(key: MetricKey, value: number, labels: Record<string, string> = {}): void {
    if (!this.on) return;
    const bounded = this.bound.bound(key, labels);
    if (METRICS[key].kind === 'gauge' && !this.changes(key, value, bounded)) return;
    if (this.sdk) this.sdk.add(key, value, bounded);
    else if (this.pending.length < MAX_PENDING) this.pending.push([key, value, bounded]);
    else this.dropped++;
  }

  /** Whether setting gauge `key`'s series to `value` changes it (and remembers it if so). */
  private changes(key: MetricKey, value: number, labels: Record<string, string>): boolean {
    let series = this.gauges.get(key);
    if (!series) this.gauges.set(key, (series = new Map()));
    const id = (METRICS[key].labels as readonly string[]).map((l) => labels[l] ?? '').join('\0');
    if (series.get(id)?.value === value) return false;
    series.set(id, { labels, value });
    return true;
  }

  /** Every series of gauge `key` with the value it was last set to. */
  gaugeSeries(key: MetricKey): GaugeSeries[] {
    return [...(this.gauges.get(key)?.values() ?? [])];
  }

  /** The SDK, loaded once; what waited in the queue is recorded into it first. */
  loadSdk(): Promise<Sdk> {
    this.loading ??= import('./sdk.js').then(({ startSdk }) => {
      const started = startSdk(this.env);
      for (const [key, value, labels] of this.pending) started.add(key, value, labels);
      this.pending = [];
      this.sdk = started;
      return started;
    });
    return this.loading;
  }

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
  async afterRequest(capMs = 2_000, backoff: PushBackoff = {}): Promise<void> {
    if (!this.on) return;
    if (!pushes(this.env)) {
      // Once: after the first request the SDK is loading or loaded, and an Immediate per answer
      // (an async resource, two promises) would buy nothing (issue 45, item 6).
      if (!this.loading) setImmediate(() => void this.loadSdk().catch(() => undefined));
      return;
    }
    if (Date.now() < this.skipUntil) {
      this.record('metricsPushes', 1, { result: 'skipped' });
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    let result: 'ok' | 'failed' | 'slow' = 'failed';
    try {
      // Loading is local work; only the network wait is capped.
      const sdk = await this.loadSdk();
      const cap = new Promise<'slow'>((resolve) => (timer = setTimeout(() => resolve('slow'), capMs)));
      result = await Promise.race([sdk.flush().then(() => 'ok' as const), cap]);
    } catch {
      // A push that failed is retried later (cumulative counters): never the request's problem.
      result = 'failed';
    } finally {
      clearTimeout(timer);
    }
    if (result === 'ok') {
      this.failedInARow = 0;
      this.skipUntil = 0;
    } else {
      const base = backoff.retryMs ?? RETRY_MS;
      const wait = Math.min(base * 2 ** Math.min(this.failedInARow, 30), backoff.maxRetryMs ?? MAX_RETRY_MS);
      this.failedInARow++;
      this.skipUntil = Date.now() + wait;
    }
    // Counted now, pushed with the next flush.
    this.record('metricsPushes', 1, { result });
  }

  /** Measurements dropped because the queue was full before the SDK loaded. */
  droppedBeforeLoad(): number {
    return this.dropped;
  }

  /** Stops the SDK if it was loaded (tests; a provider pushing to a collector that does not answer waits at most 500 ms). */
  async shutdown(): Promise<void> {
    const sdk = this.sdk;
    await Promise.race([sdk?.shutdown(), new Promise((r) => setTimeout(r, 500))]);
  }
}
