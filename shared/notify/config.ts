// Where kube-tidy's own CloudEvents go (docs/observing.md "Decisions as CloudEvents"), read from the
// environment with the process's settings (runtime/config.ts), so a bad value stops the process
// at start. EVENTS_SINK (any URL) wins over K_SINK (what a Knative SinkBinding injects);
// EVENTS_TOPIC publishes to Pub/Sub instead. None of them: no events, nothing counted.
import { z } from 'zod';
import { positiveInt, readEnv } from '../config/env.js';

const httpUrl = z
  .string()
  .trim()
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
    } catch {
      return false;
    }
  }, 'expected an http(s) URL');

/** A URI-reference naming the installation: no spaces, no trailing slash (`/<function>` follows it). */
const sourceBase = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(
    /^\S*[^\s/]$/,
    'expected a URI-reference without spaces or a trailing slash (e.g. kube-tidy, //prod-eu/kube-tidy, https://prod.example.com/kube-tidy)',
  );

export const EventsEnv = {
  /**
   * Where decisions go, in CloudEvents binary HTTP mode (a Knative Broker's URL, any receiver);
   * `none`: off, whatever K_SINK says; empty: not set (the chart leaves it empty for a SinkBinding's K_SINK).
   */
  EVENTS_SINK: z.preprocess((v) => (v === '' ? undefined : v), z.union([z.literal('none'), httpUrl]).optional()),
  /** Injected by a Knative SinkBinding (or a source's sink); EVENTS_SINK wins. */
  K_SINK: httpUrl.optional(),
  /** projects/<project>/topics/<topic>: publish to Pub/Sub (the CloudEvents Pub/Sub binding) instead. */
  EVENTS_TOPIC: z
    .string()
    .regex(/^projects\/[a-z][a-z0-9-]{4,28}[a-z0-9]\/topics\/[A-Za-z][A-Za-z0-9._~+%-]{2,254}$/, 'expected projects/<project>/topics/<topic>')
    .optional(),
  /** The events' `source` before `/<function>`. */
  EVENTS_SOURCE: sourceBase.default('kube-tidy'),
  /** Events waiting to be sent; past it new ones are dropped (counted). */
  EVENTS_BUFFER: positiveInt.max(1_000_000).default(10_000),
  /** Sends in flight at once. */
  EVENTS_IN_FLIGHT: positiveInt.max(64).default(4),
  /** One send's limit: past it the event is failed (counted), never retried. */
  EVENTS_SEND_TIMEOUT_SECONDS: positiveInt.max(60).default(2),
  /** After a failed send, events are dropped at once (counted) for this long: a down sink costs a counter. */
  EVENTS_SINK_DOWN_SECONDS: positiveInt.max(3600).default(10),
  /**
   * How long the end of a request waits for what is queued (a serverless instance may be frozen
   * once it has answered); 0 for a long-lived process (standalone), which sends in the background.
   */
  EVENTS_FLUSH_MS: z.coerce.number().int().min(0).max(10_000).default(1_000),
  /** Pod decisions per pods.decided event, past a pass's per-pod events. */
  EVENTS_BATCH_SIZE: positiveInt.max(5_000).default(500),
} as const;

const Schema = z.object(EventsEnv).refine((e) => !(e.EVENTS_TOPIC && e.EVENTS_SINK && e.EVENTS_SINK !== 'none'), {
  message: 'set only one of EVENTS_SINK (HTTP) and EVENTS_TOPIC (Pub/Sub)',
  path: ['EVENTS_TOPIC'],
});

export type EventsSink = { url: string } | { topic: string; emulatorHost?: string; metadataHost?: string };

export interface EventsSettings {
  sink: EventsSink;
  source: string;
  buffer: number;
  inFlight: number;
  sendTimeoutMs: number;
  sinkDownMs: number;
  flushMs: number;
  batchSize: number;
}

/** The outbox's settings, or undefined when no sink is set (events off). Throws ConfigError. */
export function readEventsConfig(env: NodeJS.ProcessEnv): EventsSettings | undefined {
  const c = readEnv(Schema, env);
  if (c.EVENTS_SINK === 'none') return undefined;
  const sink: EventsSink | undefined = c.EVENTS_SINK
    ? { url: c.EVENTS_SINK }
    : c.EVENTS_TOPIC
      ? {
          topic: c.EVENTS_TOPIC,
          ...(env.PUBSUB_EMULATOR_HOST ? { emulatorHost: env.PUBSUB_EMULATOR_HOST } : {}),
          ...(env.GCE_METADATA_HOST ? { metadataHost: env.GCE_METADATA_HOST } : {}),
        }
      : c.K_SINK
        ? { url: c.K_SINK }
        : undefined;
  if (!sink) return undefined;
  return {
    sink,
    source: c.EVENTS_SOURCE,
    buffer: c.EVENTS_BUFFER,
    inFlight: c.EVENTS_IN_FLIGHT,
    sendTimeoutMs: c.EVENTS_SEND_TIMEOUT_SECONDS * 1000,
    sinkDownMs: c.EVENTS_SINK_DOWN_SECONDS * 1000,
    flushMs: c.EVENTS_FLUSH_MS,
    batchSize: c.EVENTS_BATCH_SIZE,
  };
}
