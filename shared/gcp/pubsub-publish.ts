// Publishing to a Pub/Sub topic over its REST API (projects.topics.publish): the one call a
// sweep on Cloud Run needs to hand out shards (docs/scale.md), so not worth a gRPC client in
// every function's bundle. On Cloud Run the access token comes from the metadata server, for
// the service's own service account (which needs roles/pubsub.publisher on the topic). With
// PUBSUB_EMULATOR_HOST set, as Google's client libraries do, it talks plain HTTP to the
// emulator and sends no token.
import type { PubSubMessage } from '../cloudevents/index.js';
import { MetadataTokens } from './metadata-token.js';

export interface PubSubTarget {
  /** projects/<project>/topics/<topic> */
  topic: string;
  /** host:port of a Pub/Sub emulator (PUBSUB_EMULATOR_HOST). */
  emulatorHost?: string;
  /** host[:port] of the metadata server (GCE_METADATA_HOST), metadata.google.internal by default. */
  metadataHost?: string;
}

const TIMEOUT_MS = 10_000;

/**
 * Publishes `messages`; resolves to the message ids, throws on anything but a 2xx. `tokens`
 * is the caller's token cache (metadata-token.ts), kept as long as the caller is.
 */
export async function publish(target: PubSubTarget, messages: PubSubMessage[], tokens: MetadataTokens = new MetadataTokens()): Promise<string[]> {
  const base = target.emulatorHost ? `http://${target.emulatorHost}` : 'https://pubsub.googleapis.com';
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (!target.emulatorHost) headers.authorization = `Bearer ${await tokens.token(target.metadataHost ?? 'metadata.google.internal')}`;
  const res = await fetch(`${base}/v1/${target.topic}:publish`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ messages }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`Pub/Sub publish to ${target.topic}: HTTP ${res.status} ${text.slice(0, 200)}`);
  const ids = (JSON.parse(text) as { messageIds?: unknown }).messageIds;
  if (!Array.isArray(ids) || ids.length !== messages.length) throw new Error(`Pub/Sub publish to ${target.topic}: expected ${messages.length} message ids`);
  return ids.map(String);
}
