// shared/cloudevents: every bridge format in, one InternalEvent out (and the one format out that
// the local bridge needs). Functions import from here only.
export { decodeEvent, decodeIfCloudEvent, isEventRequest } from './decode.js';
export { httpMessage, pubSubMessage, toApiServerSourceEvent, type HttpMessage, type HttpMode, type PubSubMessage } from './encode.js';
export { apiServerSubject, guessResource } from './subject.js';
export type { SubjectParts } from './subject.js';
export { BadEventError } from './errors.js';
export type { BadEventStatus } from './errors.js';
export { KNATIVE_PING_TYPE, KNATIVE_REF_PREFIX, KNATIVE_RESOURCE_PREFIX, resourceEventType } from './knative.js';
export { ARGO_RESOURCE_TYPE } from './argo.js';
export { PUBSUB_TYPE } from './pubsub.js';
export { MAX_SHARD_PODS, shardDigest, shardEvent, SWEEP_SHARD_TYPE, type ShardEvent, type SweepShard } from './shard.js';
export type {
  Bridge,
  EventOrigin,
  HttpRequestLike,
  InternalEvent,
  KubeObject,
  KubeObjectMeta,
  ObjectEvent,
  ObjectRef,
  PubSubPayload,
  ReferenceEvent,
  TickEvent,
  Transport,
  Verb,
} from './types.js';
