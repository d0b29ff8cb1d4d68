import type { CloudEvent } from 'cloudevents';
import { ARGO_RESOURCE_TYPE, decodeArgoEvent, looksLikeArgoPayload } from './argo.js';
import { BadEventError } from './errors.js';
import { isCloudEventRequest, readRequest } from './http.js';
import {
  decodePingEvent,
  decodeRefEvent,
  decodeResourceEvent,
  KNATIVE_PING_TYPE,
  KNATIVE_REF_PREFIX,
  KNATIVE_RESOURCE_PREFIX,
  parseApiServerType,
} from './knative.js';
import { decodeManualObject } from './manual.js';
import { carriesPubSubPush, decodePubSub, looksLikePubSubPush, PUBSUB_TYPE } from './pubsub.js';
import { decodeShardEvent, SWEEP_SHARD_TYPE } from './shard.js';
import type { HttpRequestLike, InternalEvent, PartialOrigin, Transport } from './types.js';

/**
 * Decodes any request a bridge (or a person) sends into one InternalEvent.
 * Pure: no network, clock or logging. Throws only BadEventError, whose `status` is the 4xx to
 * answer; anything else escaping from here is a bug, not bad input.
 *
 * CloudEvents (binary or structured) are dispatched on `type`:
 *   dev.knative.apiserver.resource.{add,update,delete}  -> object
 *   dev.knative.apiserver.ref.{add,update,delete}       -> reference
 *   dev.knative.sources.ping                            -> tick
 *   resource (Argo Events resource event source)        -> object (+ oldObject on update)
 *   google.cloud.pubsub.topic.v1.messagePublished       -> whatever the message carries
 *   dev.kube-tidy.sweep.shard.v1                        -> shard (a slice of a sweep)
 * Plain JSON bodies: a Pub/Sub push envelope, an Argo payload, else one Kubernetes object
 * (manual call, verb update).
 */
/**
 * For endpoints a schedule calls: a CloudEvent (either mode) or a raw Pub/Sub push decoded, or
 * undefined for a plain request (Cloud Scheduler's or cron's POST, a person's curl), whose body
 * is not otherwise used.
 */
export function decodeIfCloudEvent(req: HttpRequestLike): InternalEvent | undefined {
  return isEventRequest(req) ? decodeEvent(req) : undefined;
}

/** Whether the request carries an event to decode: CloudEvent headers, or a Pub/Sub push envelope as its body. */
export function isEventRequest(req: HttpRequestLike): boolean {
  return isCloudEventRequest(req) || carriesPubSubPush(req.body);
}

export function decodeEvent(req: HttpRequestLike): InternalEvent {
  const read = readRequest(req);
  if (read.transport === 'plain') return decodePlain(read.body);
  return decodeCloudEvent(read.event, read.transport);
}

function decodeCloudEvent(event: CloudEvent<unknown>, transport: Transport): InternalEvent {
  const origin: PartialOrigin = {
    transport,
    cloudEvent: {
      id: event.id,
      source: event.source,
      type: event.type,
      ...(event.subject !== undefined ? { subject: event.subject } : {}),
    },
  };
  const { type, data } = event;
  const knative = parseApiServerType(type);
  if (knative?.mode === 'resource') return decodeResourceEvent(knative.verb, data, 'data', origin);
  if (knative?.mode === 'ref') return decodeRefEvent(knative.verb, data, 'data', origin);
  if (type === KNATIVE_PING_TYPE) return decodePingEvent(data, origin);
  if (type === ARGO_RESOURCE_TYPE) return decodeArgoEvent(data, 'data', origin);
  if (type === PUBSUB_TYPE) return decodePubSub(data, 'data', origin);
  if (type === SWEEP_SHARD_TYPE) return decodeShardEvent(data, origin);
  throw new BadEventError(422, `unsupported CloudEvent type "${type}": this endpoint accepts ${SUPPORTED_TYPES}`);
}

const SUPPORTED_TYPES = [
  `${KNATIVE_RESOURCE_PREFIX}{add,update,delete}`,
  `${KNATIVE_REF_PREFIX}{add,update,delete}`,
  KNATIVE_PING_TYPE,
  `"${ARGO_RESOURCE_TYPE}" (Argo Events)`,
  PUBSUB_TYPE,
  SWEEP_SHARD_TYPE,
].join(', ');

function decodePlain(body: unknown): InternalEvent {
  if (looksLikePubSubPush(body)) return decodePubSub(body, 'body', { transport: 'plain' });
  if (looksLikeArgoPayload(body)) return decodeArgoEvent(body, 'body', { transport: 'plain' });
  return decodeManualObject(body);
}
