import { z } from 'zod';
import { ARGO_RESOURCE_TYPE, decodeArgoEvent, looksLikeArgoPayload } from './argo.js';
import { bodyText, isPlainObject, parseJson } from './body.js';
import { BadEventError, parseOrThrow } from './errors.js';
import { decodeRefEvent, decodeResourceEvent, parseApiServerType } from './knative.js';
import { decodeShardEvent, SWEEP_SHARD_TYPE } from './shard.js';
import type { InternalEvent, PartialOrigin, PubSubPayload } from './types.js';

// GCP Pub/Sub push. The same envelope arrives two ways: wrapped by Eventarc as the data of a
// `google.cloud.pubsub.topic.v1.messagePublished` CloudEvent, or as the raw push body
// {message: {data, attributes, messageId}, subscription} with no CloudEvent headers.
//
// What message.data (base64 JSON) may carry, checked in this order:
//  1. a structured CloudEvent (has specversion and type): its type and data are used;
//  2. attribute `ce-type` (the CloudEvents Pub/Sub binding's binary mode): that type, with
//     the decoded data as the event data;
//  3. no type anywhere, but Argo's {type: ADD|UPDATE|DELETE, body} shape: an Argo payload.
// The type must be a Knative ApiServerSource type, Argo's `resource` or kube-tidy's own sweep
// shard (published by a sweep on GCP: docs/scale.md); anything else is 422.

export const PUBSUB_TYPE = 'google.cloud.pubsub.topic.v1.messagePublished';

const envelopeSchema = z.looseObject({
  message: z.looseObject({
    data: z.string(),
    attributes: z.record(z.string(), z.string()).optional(),
    // The push JSON carries both spellings; Eventarc's data may only have one.
    messageId: z.string().optional(),
    message_id: z.string().optional(),
  }),
  subscription: z.string().optional(),
});

// Standard alphabet with padding, as Pub/Sub's JSON encodes bytes. Node's decoder silently
// skips junk, so without this check a corrupted message would decode to something else.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A raw push body: recognised by its envelope, since it comes without CloudEvent headers. An
 * object with a `message` object or a `subscription` string is taken for one, so that a
 * damaged envelope is decoded (and refused with its field path), not taken for something else.
 */
export function looksLikePubSubPush(value: unknown): boolean {
  return isPlainObject(value) && (isPlainObject(value['message']) || typeof value['subscription'] === 'string');
}

/**
 * Whether a request body without CloudEvent headers is a Pub/Sub push envelope, in whatever
 * form express left it (parsed, text or bytes). Such a body is always decoded: an endpoint
 * that takes a plain POST as a schedule tick must not run a pass for a push it cannot read.
 */
export function carriesPubSubPush(body: unknown): boolean {
  if (isPlainObject(body)) return looksLikePubSubPush(body);
  try {
    const text = bodyText(body);
    return text !== undefined && text.trim().startsWith('{') && looksLikePubSubPush(JSON.parse(text));
  } catch {
    return false; // not JSON (or not UTF-8): a plain POST, as before
  }
}

/** `root` names where the envelope sat: `data` under Eventarc, `body` for a raw push. */
export function decodePubSub(envelope: unknown, root: string, outer: PartialOrigin): InternalEvent {
  const env = parseOrThrow(envelopeSchema, envelope, root, 'Pub/Sub push envelope');
  const dataPath = `${root}.message.data`;
  if (!BASE64.test(env.message.data)) {
    throw new BadEventError(400, `${dataPath} is not valid base64`);
  }
  const text = bodyText(Buffer.from(env.message.data, 'base64'), `${dataPath} (base64-decoded)`) ?? '';
  const decoded = parseJson(text, `${dataPath} (base64-decoded)`);

  const inner = innerEvent(decoded, env.message.attributes ?? {}, dataPath);
  const payload: PubSubPayload =
    inner.type === ARGO_RESOURCE_TYPE ? 'argo-events' : inner.type === SWEEP_SHARD_TYPE ? 'kube-tidy-shard' : 'knative-apiserversource';
  const messageId = env.message.messageId ?? env.message.message_id;
  const origin: PartialOrigin = {
    ...outer,
    bridge: 'gcp-pubsub',
    pubsub: {
      ...(messageId !== undefined ? { messageId } : {}),
      ...(env.subscription !== undefined ? { subscription: env.subscription } : {}),
      payload,
    },
  };

  if (inner.type === ARGO_RESOURCE_TYPE) return decodeArgoEvent(inner.data, inner.root, origin);
  if (inner.type === SWEEP_SHARD_TYPE) return decodeShardEvent(inner.data, origin, inner.root);
  const knative = parseApiServerType(inner.type);
  if (knative === undefined) {
    throw new BadEventError(
      422,
      `unsupported event type "${inner.type}" inside a Pub/Sub message: expected a Knative ApiServerSource type (dev.knative.apiserver.resource.* or dev.knative.apiserver.ref.*), "${ARGO_RESOURCE_TYPE}" (Argo Events) or "${SWEEP_SHARD_TYPE}" (a sweep's shard)`,
    );
  }
  return knative.mode === 'resource'
    ? decodeResourceEvent(knative.verb, inner.data, inner.root, origin)
    : decodeRefEvent(knative.verb, inner.data, inner.root, origin);
}

function innerEvent(decoded: unknown, attributes: Record<string, string>, dataPath: string): { type: string; data: unknown; root: string } {
  if (isPlainObject(decoded) && typeof decoded['specversion'] === 'string' && typeof decoded['type'] === 'string') {
    return { type: decoded['type'], data: decoded['data'], root: `${dataPath}.data` };
  }
  const ceType = attributes['ce-type'];
  if (ceType !== undefined && ceType !== '') return { type: ceType, data: decoded, root: dataPath };
  if (looksLikeArgoPayload(decoded)) return { type: ARGO_RESOURCE_TYPE, data: decoded, root: dataPath };
  throw new BadEventError(
    422,
    `cannot tell what the Pub/Sub message carries: set attribute ce-type (a Knative ApiServerSource type or "${ARGO_RESOURCE_TYPE}"), publish a structured CloudEvent, or publish an Argo Events resource payload`,
  );
}
