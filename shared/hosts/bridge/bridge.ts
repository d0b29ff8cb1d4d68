// The bridge: kind watches feed a keyed queue, the queue feeds deliveries. Everything a
// person needs to follow it is in the log: one line per event outcome, a count every
// statsIntervalMs and a summary at stop. The sink is a URL (each event POSTed as a CloudEvent,
// as Knative's ApiServerSource does: `kube-tidy bridge`) or a call in process (the standalone
// program hands the watched object to its targets as it is, nothing encoded); the same
// ordering, queue bound, retries and drain apply to both.
import { setLongInterval, setLongTimeout, type LongTimeout } from '../../config/long-timeout.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { toApiServerSourceEvent, type KubeObject, type Verb } from '../../cloudevents/index.js';
import { DEFAULT_RETRY, deliver, deliverWith, type Attempt, type DeliveryResult, type RetryOptions, type RetryPolicy } from './deliver.js';
import { parseKinds, type KindInfo } from './kinds.js';
import { createLogger } from '../../log.js';
import type { Logger } from './log.js';
import { KeyedQueue } from './queue.js';
import { startKindWatch, type KindWatch } from './watch.js';

/** A sink in process: one attempt at one watch event, answered as an HTTP sink would (a status). */
export interface InProcessSink {
  /** Said in the logs where a URL would be. */
  name: string;
  send(verb: Verb, object: KubeObject, signal?: AbortSignal): Promise<Attempt>;
}

export interface BridgeOptions {
  kubeConfig: KubeConfig;
  /** Where CloudEvents are POSTed, or what takes each event in process. */
  sink: string | InProcessSink;
  /** Kind names from the KINDS table; default Pod. */
  kinds?: string[];
  namespace?: string;
  labelSelector?: string;
  /** Which watched objects are delivered (default all): e.g. only those in selected namespaces. */
  accept?: (object: KubeObject) => boolean;
  retry?: Partial<RetryPolicy>;
  /** Deliveries in flight at once (events for one object always go one at a time). */
  concurrency?: number;
  /** Events waiting for delivery; beyond it the oldest waiting event is dropped. */
  queueSize?: number;
  /** Knative sends binary mode. */
  mode?: 'binary' | 'structured';
  /** The CloudEvent source; default the API server URL, as Knative sets it. */
  source?: string;
  log?: Logger;
  /** 0 turns the periodic count off. */
  statsIntervalMs?: number;
}

export interface BridgeStats {
  received: Record<Verb, number>;
  delivered: number;
  rejected: number;
  failed: number;
  dropped: number;
  /** Seen but not delivered: `accept` said no. */
  skipped: number;
  /** Still undelivered when stop's deadline passed. */
  abandoned: number;
  retries: number;
  waiting: number;
  running: number;
  /** Re-lists after 410 Gone: changes inside each gap produced no events. */
  gaps: number;
  watchErrors: number;
}

export interface Bridge {
  /** Stops watching, then waits up to deadlineMs for queued and in-flight deliveries. */
  stop(options?: { deadlineMs?: number }): Promise<BridgeStats>;
  stats(): BridgeStats;
  readonly source: string;
  readonly kinds: readonly KindInfo[];
}

interface Item {
  verb: Verb;
  object: KubeObject;
  kind: KindInfo;
}

export const DEFAULTS = { kinds: ['Pod'], concurrency: 4, queueSize: 1000, statsIntervalMs: 60_000, stopDeadlineMs: 10_000 } as const;

export async function startBridge(o: BridgeOptions): Promise<Bridge> {
  const log = o.log ?? createLogger({ destination: process.stderr });
  const kinds = parseKinds((o.kinds ?? DEFAULTS.kinds).join(','));
  const source = o.source ?? o.kubeConfig.getCurrentCluster()?.server;
  if (!source) throw new Error('the kubeconfig has no current cluster');
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...o.retry };
  const mode = o.mode ?? 'binary';
  const abort = new AbortController();
  const counts = { delivered: 0, rejected: 0, failed: 0, dropped: 0, skipped: 0, abandoned: 0, retries: 0, gaps: 0, watchErrors: 0 };
  const received: Record<Verb, number> = { add: 0, update: 0, delete: 0 };

  const send = async ({ verb, object, kind }: Item) => {
    const started = Date.now();
    const retrying: RetryOptions = {
      policy,
      signal: abort.signal,
      onRetry: ({ attempt, retry, delayMs }) => {
        counts.retries++;
        const why = 'status' in attempt ? { status: attempt.status } : { error: attempt.error };
        log.debug({ ...at, ...why, retry, delayMs: Math.round(delayMs) }, 'retrying');
      },
    };
    let at: Record<string, unknown>;
    let r: DeliveryResult;
    if (typeof o.sink === 'string') {
      const event = toApiServerSourceEvent(verb, object, source);
      at = { id: event.id, type: event.type, subject: event.subject, resourceVersion: object.metadata.resourceVersion };
      r = await deliver(event, { ...retrying, sink: o.sink, mode });
    } else {
      const sink = o.sink;
      at = { verb, kind: kind.kind, namespace: object.metadata.namespace, name: object.metadata.name, resourceVersion: object.metadata.resourceVersion };
      r = await deliverWith((signal) => sink.send(verb, object, signal), retrying);
    }
    const line = {
      ...at,
      outcome: r.outcome,
      attempts: r.attempts,
      ms: Date.now() - started,
      ...(r.status ? { status: r.status } : {}),
      ...(r.error ? { error: r.error } : {}),
    };
    if (r.outcome === 'delivered') {
      counts.delivered++;
      log.info(line, 'delivered');
    } else if (r.outcome === 'rejected') {
      counts.rejected++;
      log.warn(line, 'rejected by the sink, not retried');
    } else if (r.outcome === 'failed') {
      counts.failed++;
      log.error(line, `gave up after ${r.attempts} attempts`);
    } else {
      counts.abandoned++;
      log.warn(line, 'abandoned at shutdown');
    }
  };

  const queue = new KeyedQueue<Item>({
    concurrency: o.concurrency ?? DEFAULTS.concurrency,
    capacity: o.queueSize ?? DEFAULTS.queueSize,
    handle: send,
    onDrop: (item) => {
      counts.dropped++;
      log.warn({ ...describe(item), dropped: counts.dropped }, 'queue full: dropped the oldest waiting event');
    },
  });

  const stats = (): BridgeStats => ({ received: { ...received }, ...counts, waiting: queue.waitingCount, running: queue.runningCount });

  const watches: KindWatch[] = [];
  try {
    for (const kind of kinds) {
      watches.push(
        await startKindWatch({
          kubeConfig: o.kubeConfig,
          kind,
          log,
          ...(o.namespace ? { namespace: o.namespace } : {}),
          ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}),
          onEvent: (verb, object) => {
            received[verb]++;
            if (o.accept && !o.accept(object)) {
              counts.skipped++;
              return;
            }
            const key = `${kind.apiVersion}/${kind.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;
            queue.push(key, { verb, object, kind });
          },
          onGap: () => counts.gaps++,
          onError: () => counts.watchErrors++,
        }),
      );
    }
  } catch (e) {
    await Promise.all(watches.map((w) => w.stop()));
    throw e;
  }
  log.info(
    {
      sink: typeof o.sink === 'string' ? o.sink : o.sink.name,
      source,
      kinds: kinds.map((k) => k.kind),
      namespace: o.namespace ?? '(all)',
      labelSelector: o.labelSelector ?? '',
      mode,
    },
    'bridge started',
  );

  const interval = o.statsIntervalMs ?? DEFAULTS.statsIntervalMs;
  let lastLine = '';
  const logStats = () => {
    const s = stats();
    const line = JSON.stringify(s);
    if (line !== lastLine) log.info(s, 'bridge stats');
    lastLine = line;
  };
  // --stats-interval is any Go duration: setInterval would fire every millisecond past 2^31-1 ms.
  const timer = interval > 0 ? setLongInterval(logStats, interval, { unref: true }) : undefined;

  let stopped: Promise<BridgeStats> | undefined;
  const stop = async (deadlineMs: number): Promise<BridgeStats> => {
    timer?.clear();
    await Promise.all(watches.map((w) => w.stop()));
    let timeout: LongTimeout | undefined;
    const deadline = new Promise<'late'>((resolve) => (timeout = setLongTimeout(() => resolve('late'), deadlineMs)));
    const how = await Promise.race([queue.idle().then(() => 'drained' as const), deadline]);
    timeout?.clear();
    if (how === 'late') {
      for (const item of queue.clear()) {
        counts.abandoned++;
        log.warn({ ...describe(item), outcome: 'aborted' }, 'abandoned at shutdown');
      }
      abort.abort();
      await queue.idle();
    }
    const s = stats();
    log.info(s, how === 'drained' ? 'bridge stopped, all deliveries finished' : `bridge stopped, deadline of ${deadlineMs} ms passed`);
    return s;
  };

  return {
    source,
    kinds,
    stats,
    stop: (opts) => (stopped ??= stop(opts?.deadlineMs ?? DEFAULTS.stopDeadlineMs)),
  };
}

function describe({ verb, object, kind }: Item) {
  return { verb, kind: kind.kind, namespace: object.metadata.namespace, name: object.metadata.name, resourceVersion: object.metadata.resourceVersion };
}
