// The two ways an event leaves: HTTP in CloudEvents binary mode (a Knative Broker, any URL),
// or a Pub/Sub message in the CloudEvents Pub/Sub binding (ce- attributes, as
// cloudevents/pubsub.ts decodes). The SDK and the encoders load with the first send: a process
// that sends nothing does not pay for them.
import { MetadataTokens } from '../gcp/metadata-token.js';
import type { EventsSink } from './config.js';
import type { Send } from './outbox.js';
import type { OutEvent } from './types.js';

/** `e` as the SDK's CloudEvent: the SDK checks the attributes (names, `time`, URIs) as it builds it. */
export async function toCloudEvent(e: OutEvent) {
  const { CloudEvent } = await import('cloudevents');
  return new CloudEvent({
    specversion: '1.0',
    id: e.id,
    type: e.type,
    source: e.source,
    ...(e.subject ? { subject: e.subject } : {}),
    time: e.time,
    dataschema: e.dataschema,
    datacontenttype: 'application/json',
    data: e.data,
    ...e.extensions,
  });
}

/** The HTTP request (binary mode: attributes in ce- headers, the data as the JSON body). */
export async function httpRequestOf(e: OutEvent): Promise<{ headers: Record<string, string>; body: string }> {
  const [{ httpMessage }, ce] = await Promise.all([import('../cloudevents/encode.js'), toCloudEvent(e)]);
  return httpMessage(ce, 'binary');
}

/** The Pub/Sub message (binary mode of the Pub/Sub binding). */
export async function pubSubMessageOf(e: OutEvent) {
  const [{ pubSubMessage }, ce] = await Promise.all([import('../cloudevents/encode.js'), toCloudEvent(e)]);
  return pubSubMessage(ce);
}

export function senderFor(sink: EventsSink): Send {
  if ('url' in sink) {
    const url = sink.url;
    return async (e, signal) => {
      const { headers, body } = await httpRequestOf(e);
      const res = await fetch(url, { method: 'POST', headers, body, signal });
      // The body is not needed; reading it frees the connection for the next send.
      await res.arrayBuffer().catch(() => undefined);
      if (!res.ok) throw new Error(`the sink answered ${res.status}`);
    };
  }
  // The token is this sender's to keep: one sender per outbox, one outbox per process.
  const tokens = new MetadataTokens();
  return async (e) => {
    const [{ publish }, message] = await Promise.all([import('../gcp/pubsub-publish.js'), pubSubMessageOf(e)]);
    await publish(sink, [message], tokens);
  };
}
