import { randomUUID } from 'node:crypto';
import { CloudEvent, HTTP } from 'cloudevents';
import { resourceEventType } from './knative.js';
import { apiServerSubject } from './subject.js';
import type { KubeObject, Verb } from './types.js';

/**
 * The CloudEvent a Knative ApiServerSource in Resource mode sends for `object`, so the local
 * bridge exercises the same path as production: type dev.knative.apiserver.resource.<verb>,
 * source = the API server URL, subject as Knative builds it, extensions kind/apiversion/name/
 * namespace (copied so Triggers can filter on them), data = the whole object as JSON.
 * Put it on the wire with `httpMessage`.
 *
 * `id` defaults to a fresh UUID, as Knative's is: pass one to make tests deterministic.
 * The SDK stamps `time` itself; Knative sends none, and nothing here reads it.
 */
export function toApiServerSourceEvent(verb: Verb, object: KubeObject, sourceUrl: string, id: string = randomUUID()): CloudEvent<KubeObject> {
  const { apiVersion, kind } = object;
  const { name, namespace } = object.metadata;
  return new CloudEvent<KubeObject>({
    specversion: '1.0',
    id,
    type: resourceEventType(verb),
    source: sourceUrl,
    subject: apiServerSubject({ apiVersion, kind, name, ...(namespace ? { namespace } : {}) }),
    datacontenttype: 'application/json',
    data: object,
    kind,
    apiversion: apiVersion,
    name,
    // Cluster-scoped objects get no namespace extension rather than an empty header.
    ...(namespace ? { namespace } : {}),
  });
}

/** The two CloudEvents HTTP modes: binary (attributes in ce- headers) and structured (all in the body). */
export type HttpMode = 'binary' | 'structured';

/** An HTTP request carrying a CloudEvent: its headers and body, as sent. */
export interface HttpMessage {
  headers: Record<string, string>;
  body: string;
}

/** `event` as an HTTP request, in binary mode (Knative's default) or structured mode. */
export function httpMessage(event: CloudEvent<unknown>, mode: HttpMode = 'binary'): HttpMessage {
  const m = mode === 'structured' ? HTTP.structured(event) : HTTP.binary(event);
  return {
    headers: Object.fromEntries(Object.entries(m.headers).map(([k, v]) => [k, String(v)])),
    body: typeof m.body === 'string' ? m.body : JSON.stringify(m.body),
  };
}

/** A Pub/Sub message as the REST API's `publish` takes it: base64 data and string attributes. */
export interface PubSubMessage {
  data: string;
  attributes: Record<string, string>;
}

/**
 * `event` in the CloudEvents Pub/Sub protocol binding's binary mode: the data as the message
 * body, each context attribute as a `ce-` attribute and the content type as `content-type`.
 * The decoder (pubsub.ts) reads `ce-type` back, however the message arrives (Eventarc's
 * messagePublished event or a raw push).
 */
export function pubSubMessage(event: CloudEvent<unknown>): PubSubMessage {
  const attributes: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.toJSON())) {
    if (k === 'data' || k === 'data_base64' || v === undefined) continue;
    attributes[k === 'datacontenttype' ? 'content-type' : `ce-${k}`] = String(v);
  }
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  return { data: Buffer.from(data, 'utf8').toString('base64'), attributes };
}
