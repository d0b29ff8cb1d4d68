// One delivery of one watch event, to a URL (a CloudEvent, as Knative's ApiServerSource
// sends it) or to a sink in process, with one log line for its outcome.
import { toApiServerSourceEvent, type KubeObject, type Verb } from '../../cloudevents/index.js';
import { deliver, deliverWith, type Attempt, type DeliveryResult, type RetryOptions, type RetryPolicy } from './deliver.js';
import type { KindInfo } from './kinds.js';
import type { Logger } from './log.js';

/** A sink in process: one attempt at one watch event, answered as an HTTP sink would (a status). */
export interface InProcessSink {
  /** Said in the logs where a URL would be. */
  name: string;
  send(verb: Verb, object: KubeObject, signal?: AbortSignal): Promise<Attempt>;
}

export interface Item {
  verb: Verb;
  object: KubeObject;
  kind: KindInfo;
}

/** The bridge's counters that deliveries, the queue and the watches add to (the most of its BridgeStats). */
export interface Counts {
  delivered: number;
  rejected: number;
  failed: number;
  dropped: number;
  /** Seen but not delivered: `accept` said no. */
  skipped: number;
  /** Still undelivered when stop's deadline passed. */
  abandoned: number;
  retries: number;
  /** Re-lists after 410 Gone: changes inside each gap produced no events. */
  gaps: number;
  watchErrors: number;
}

export interface SendContext {
  sink: string | InProcessSink;
  source: string;
  mode: 'binary' | 'structured';
  policy: RetryPolicy;
  /** Aborted when stop's deadline passes: retries end, deliveries in flight are abandoned. */
  signal: AbortSignal;
  counts: Counts;
  log: Logger;
}

/** What the queue calls for each item: deliver it, count and log its outcome. */
export function sender({ sink, source, mode, policy, signal, counts, log }: SendContext): (item: Item) => Promise<void> {
  return async ({ verb, object, kind }: Item) => {
    const started = Date.now();
    const retrying: RetryOptions = {
      policy,
      signal,
      onRetry: ({ attempt, retry, delayMs }) => {
        counts.retries++;
        const why = 'status' in attempt ? { status: attempt.status } : { error: attempt.error };
        log.debug({ ...at, ...why, retry, delayMs: Math.round(delayMs) }, 'retrying');
      },
    };
    let at: Record<string, unknown>;
    let r: DeliveryResult;
    if (typeof sink === 'string') {
      const event = toApiServerSourceEvent(verb, object, source);
      at = { id: event.id, type: event.type, subject: event.subject, resourceVersion: object.metadata.resourceVersion };
      r = await deliver(event, { ...retrying, sink, mode });
    } else {
      at = { verb, kind: kind.kind, namespace: object.metadata.namespace, name: object.metadata.name, resourceVersion: object.metadata.resourceVersion };
      r = await deliverWith((s) => sink.send(verb, object, s), retrying);
    }
    logOutcome(
      r,
      {
        ...at,
        outcome: r.outcome,
        attempts: r.attempts,
        ms: Date.now() - started,
        ...(r.status ? { status: r.status } : {}),
        ...(r.error ? { error: r.error } : {}),
      },
      counts,
      log,
    );
  };
}

function logOutcome(r: DeliveryResult, line: Record<string, unknown>, counts: Counts, log: Logger): void {
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
}

export function describe({ verb, object, kind }: Item) {
  return { verb, kind: kind.kind, namespace: object.metadata.namespace, name: object.metadata.name, resourceVersion: object.metadata.resourceVersion };
}
