// The one event shape every function sees, whatever bridge delivered the request. Functions
// switch on `type`; `origin` is for logs and answers only and never drives a decision (bridge
// ids are random per send, so they are useless for de-duplication: uid/resourceVersion are).

export type Verb = 'add' | 'update' | 'delete';

/** Which bridge delivered the request (the outermost one when Pub/Sub carries another). */
export type Bridge =
  | 'knative-apiserversource'
  | 'knative-pingsource'
  | 'argo-events'
  | 'gcp-pubsub'
  | 'manual'
  /** kube-tidy's own sweep shards, through whatever broker carries them. */
  | 'kube-tidy';

/** How the request was framed: CloudEvents HTTP binary/structured mode, or a bare JSON body. */
export type Transport = 'binary' | 'structured' | 'plain';

/** The inner payload format a Pub/Sub message carried. */
export type PubSubPayload = 'knative-apiserversource' | 'argo-events' | 'kube-tidy-shard';

export interface EventOrigin {
  bridge: Bridge;
  transport: Transport;
  /** Context attributes of the HTTP-level CloudEvent; absent for plain bodies. */
  cloudEvent?: { id: string; source: string; type: string; subject?: string };
  /** Set when the event came out of a Pub/Sub message (Eventarc or a raw push). */
  pubsub?: { messageId?: string; subscription?: string; payload: PubSubPayload };
}

/**
 * The minimum the core needs to act safely on an object: identity for preconditions (uid,
 * resourceVersion) and enough to address it. Everything else passes through untouched.
 */
export interface KubeObjectMeta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion?: string;
  [field: string]: unknown;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: KubeObjectMeta;
  [field: string]: unknown;
}

/** What Knative's Reference mode sends: no uid, so the caller must GET the object. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** The full object is known (Resource mode, Argo, manual). `oldObject` only from Argo updates. */
export interface ObjectEvent {
  type: 'object';
  verb: Verb;
  object: KubeObject;
  oldObject?: KubeObject;
  origin: EventOrigin;
}

/** Only a reference is known (Knative Reference mode); look it up before deciding. */
export interface ReferenceEvent {
  type: 'reference';
  verb: Verb;
  ref: ObjectRef;
  origin: EventOrigin;
}

/** A schedule fired (PingSource). `data` is whatever the source was configured to send. */
export interface TickEvent {
  type: 'tick';
  data: unknown;
  origin: EventOrigin;
}

export type InternalEvent = ObjectEvent | ReferenceEvent | TickEvent | ShardEvent;

/** An HTTP request as the functions see it after express's body parsing. */
export interface HttpRequestLike {
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * An origin before a format decoder names the bridge. Pub/Sub sets `bridge` itself so the
 * inner Knative or Argo decoder keeps it ('gcp-pubsub' is what delivered the request).
 */
export type PartialOrigin = Omit<EventOrigin, 'bridge'> & { bridge?: Bridge };

/** A slice of a sweep another instance planned: checked on the wire by shard.ts's schema. */
export interface SweepShard {
  /** Which sweep planned it (for logs and answers; it decides nothing). */
  pass: string;
  index: number;
  of: number;
  pods: { namespace: string; name: string; uid: string }[];
}

export interface ShardEvent {
  type: 'shard';
  shard: SweepShard;
  origin: EventOrigin;
}
