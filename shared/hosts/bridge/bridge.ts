// The bridge: kind watches feed a keyed queue, the queue feeds deliveries. Everything a
// person needs to follow it is in the log: one line per event outcome, a count every
// statsIntervalMs and a summary at stop. The sink is a URL (each event POSTed as a CloudEvent,
// as Knative's ApiServerSource does: `kube-tidy bridge`) or a call in process (the standalone
// program hands the watched object to its targets as it is, nothing encoded); the same
// ordering, queue bound, retries and drain apply to both.
import { setLongInterval, setLongTimeout, type LongTimeout } from '../../config/long-timeout.js';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject, Verb } from '../../cloudevents/index.js';
import { DEFAULT_RETRY, type RetryPolicy } from './deliver.js';
import { parseKinds, type KindInfo } from './kinds.js';
import { createLogger } from '../../log.js';
import type { Logger } from './log.js';
import { KeyedQueue } from './queue.js';
import { describe, sender, type Counts, type InProcessSink, type Item } from './send.js';
import { startKindWatch, type KindWatch } from './watch.js';

export type { InProcessSink } from './send.js';

export interface BridgeOptions {
  kubeConfig: KubeConfig;
  /** Where CloudEvents are POSTed, or what takes each event in process. */
  sink: string | InProcessSink;
  /** Kind names from the KINDS table, or kinds found by discovery (a ttl rule's: their plural never guessed); default Pod. */
  kinds?: (string | KindInfo)[];
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

/** The counters (send.ts Counts), what each verb received, and the queue as it stands. */
export interface BridgeStats extends Counts {
  received: Record<Verb, number>;
  waiting: number;
  running: number;
}

export interface Bridge {
  /** Stops watching, then waits up to deadlineMs for queued and in-flight deliveries. */
  stop(options?: { deadlineMs?: number }): Promise<BridgeStats>;
  stats(): BridgeStats;
  readonly source: string;
  readonly kinds: readonly KindInfo[];
}

export const DEFAULTS = { kinds: ['Pod'], concurrency: 4, queueSize: 1000, statsIntervalMs: 60_000, stopDeadlineMs: 10_000 } as const;

export async function startBridge(o: BridgeOptions): Promise<Bridge> {
  const log = o.log ?? createLogger({ destination: process.stderr });
  const asked = o.kinds ?? DEFAULTS.kinds;
  const named = asked.filter((k): k is string => typeof k === 'string');
  const kinds = [...(named.length ? parseKinds(named.join(',')) : []), ...asked.filter((k): k is KindInfo => typeof k !== 'string')];
  const source = o.source ?? o.kubeConfig.getCurrentCluster()?.server;
  if (!source) throw new Error('the kubeconfig has no current cluster');
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...o.retry };
  const mode = o.mode ?? 'binary';
  const abort = new AbortController();
  const counts: Counts = { delivered: 0, rejected: 0, failed: 0, dropped: 0, skipped: 0, abandoned: 0, retries: 0, gaps: 0, watchErrors: 0 };
  const received: Record<Verb, number> = { add: 0, update: 0, delete: 0 };

  const queue = new KeyedQueue<Item>({
    concurrency: o.concurrency ?? DEFAULTS.concurrency,
    capacity: o.queueSize ?? DEFAULTS.queueSize,
    handle: sender({ sink: o.sink, source, mode, policy, signal: abort.signal, counts, log }),
    onDrop: (item) => {
      counts.dropped++;
      log.warn({ ...describe(item), dropped: counts.dropped }, 'queue full: dropped the oldest waiting event');
    },
  });

  const stats = (): BridgeStats => ({ received: { ...received }, ...counts, waiting: queue.waitingCount, running: queue.runningCount });

  const watches = await watchKinds(o, kinds, log, {
    onEvent: (kind, verb, object) => {
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
  });
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

  const timer = logStatsEvery(o.statsIntervalMs ?? DEFAULTS.statsIntervalMs, stats, log);
  let stopped: Promise<BridgeStats> | undefined;
  const stop = async (deadlineMs: number): Promise<BridgeStats> => {
    timer?.clear();
    await Promise.all(watches.map((w) => w.stop()));
    const how = await drain(queue, deadlineMs, { abort, counts, log });
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

interface WatchHandlers {
  onEvent(kind: KindInfo, verb: Verb, object: KubeObject): void;
  onGap(): void;
  onError(): void;
}

/** One watch per kind, started in order; if one cannot start, those already started are stopped. */
async function watchKinds(o: BridgeOptions, kinds: readonly KindInfo[], log: Logger, on: WatchHandlers): Promise<KindWatch[]> {
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
          onEvent: (verb, object) => on.onEvent(kind, verb, object),
          onGap: () => on.onGap(),
          onError: () => on.onError(),
        }),
      );
    }
  } catch (e) {
    await Promise.all(watches.map((w) => w.stop()));
    throw e;
  }
  return watches;
}

/** The periodic count, logged only when it changed since the last line; none for 0. */
function logStatsEvery(interval: number, stats: () => BridgeStats, log: Logger) {
  let lastLine = '';
  const logStats = () => {
    const s = stats();
    const line = JSON.stringify(s);
    if (line !== lastLine) log.info(s, 'bridge stats');
    lastLine = line;
  };
  // --stats-interval is any Go duration: setInterval would fire every millisecond past 2^31-1 ms.
  return interval > 0 ? setLongInterval(logStats, interval, { unref: true }) : undefined;
}

/**
 * Waits up to deadlineMs for queued and in-flight deliveries; past it, what still waits is
 * abandoned and what is in flight aborted, and the queue is waited for once more.
 */
async function drain(queue: KeyedQueue<Item>, deadlineMs: number, ctx: { abort: AbortController; counts: Counts; log: Logger }): Promise<'drained' | 'late'> {
  let timeout: LongTimeout | undefined;
  const deadline = new Promise<'late'>((resolve) => (timeout = setLongTimeout(() => resolve('late'), deadlineMs)));
  const how = await Promise.race([queue.idle().then(() => 'drained' as const), deadline]);
  timeout?.clear();
  if (how === 'late') {
    for (const item of queue.clear()) {
      ctx.counts.abandoned++;
      ctx.log.warn({ ...describe(item), outcome: 'aborted' }, 'abandoned at shutdown');
    }
    ctx.abort.abort();
    await queue.idle();
  }
  return how;
}
