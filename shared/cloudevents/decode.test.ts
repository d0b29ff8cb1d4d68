import { describe, expect, it } from 'vitest';
import { API_SERVER, argoPayload, base64Json, cloudEvent, pod, pubsubEnvelope } from '../../test/fixtures/events/requests.js';
import type { HttpMode as Mode } from './encode.js';
import { pubSubMessage } from './encode.js';
import { shardEvent, type SweepShard } from './shard.js';
import { decodeEvent, decodeIfCloudEvent } from './decode.js';
import type { InternalEvent } from './types.js';

const aShard: SweepShard = { pass: 'p1', index: 1, of: 2, pods: [{ namespace: 'ml', name: 'job-a-x1', uid: 'uid-1' }] };

const thePod = pod('job-a-x1');
const oldPod = pod('job-a-x1', { resourceVersion: '41' });
const ref = { apiVersion: 'v1', kind: 'Pod', name: 'job-a-x1', namespace: 'ml' };
const modes: Mode[] = ['binary', 'structured'];

interface Case {
  name: string;
  type: string;
  data: unknown;
  source?: string;
  want: (mode: Mode) => Partial<InternalEvent> & { origin?: unknown };
}

const cases: Case[] = [
  {
    name: 'a Knative resource.add event yields the new Pod',
    type: 'dev.knative.apiserver.resource.add',
    data: thePod,
    want: () => ({ type: 'object', verb: 'add', object: thePod }),
  },
  {
    name: 'a Knative resource.update event yields the new Pod',
    type: 'dev.knative.apiserver.resource.update',
    data: thePod,
    want: (mode) => ({
      type: 'object',
      verb: 'update',
      object: thePod,
      origin: {
        bridge: 'knative-apiserversource',
        transport: mode,
        cloudEvent: {
          id: 'e-1',
          source: API_SERVER,
          type: 'dev.knative.apiserver.resource.update',
          subject: '/apis/v1/namespaces/ml/pods/job-a-x1',
        },
      },
    }),
  },
  {
    name: 'a Knative resource.delete event yields the last state of the Pod',
    type: 'dev.knative.apiserver.resource.delete',
    data: thePod,
    want: () => ({ type: 'object', verb: 'delete', object: thePod }),
  },
  {
    name: 'a Knative ref.update event yields a reference to look up',
    type: 'dev.knative.apiserver.ref.update',
    data: ref,
    want: () => ({ type: 'reference', verb: 'update', ref }),
  },
  {
    name: 'a Knative ref.delete event for a cluster-scoped Node has no namespace',
    type: 'dev.knative.apiserver.ref.delete',
    data: { apiVersion: 'v1', kind: 'Node', name: 'n1' },
    want: () => ({ type: 'reference', verb: 'delete', ref: { apiVersion: 'v1', kind: 'Node', name: 'n1' } }),
  },
  {
    name: 'a PingSource event is a tick carrying its configured data',
    type: 'dev.knative.sources.ping',
    source: '/apis/v1/namespaces/kube-tidy/pingsources/sweep',
    data: { sweep: 'all' },
    want: (mode) => ({
      type: 'tick',
      data: { sweep: 'all' },
      origin: {
        bridge: 'knative-pingsource',
        transport: mode,
        cloudEvent: { id: 'e-1', source: '/apis/v1/namespaces/kube-tidy/pingsources/sweep', type: 'dev.knative.sources.ping' },
      },
    }),
  },
  {
    name: 'a PingSource event without data is a tick with undefined data',
    type: 'dev.knative.sources.ping',
    data: undefined,
    want: () => ({ type: 'tick', data: undefined }),
  },
  {
    name: 'an Argo Events UPDATE carries both the new and the old Pod',
    type: 'resource',
    source: 'k8s-pods',
    data: argoPayload('UPDATE', thePod, oldPod),
    want: () => ({ type: 'object', verb: 'update', object: thePod, oldObject: oldPod }),
  },
  {
    name: 'an Argo Events ADD with oldBody null has no oldObject',
    type: 'resource',
    source: 'k8s-pods',
    data: argoPayload('ADD', thePod),
    want: (mode) => ({
      type: 'object',
      verb: 'add',
      object: thePod,
      origin: { bridge: 'argo-events', transport: mode, cloudEvent: { id: 'e-1', source: 'k8s-pods', type: 'resource' } },
    }),
  },
  {
    name: 'an Argo Events DELETE seen through a tombstone yields the object inside it',
    type: 'resource',
    source: 'k8s-pods',
    data: argoPayload('DELETE', { Key: 'ml/job-a-x1', Obj: thePod }),
    want: () => ({ type: 'object', verb: 'delete', object: thePod }),
  },
  {
    name: 'an Eventarc Pub/Sub event carrying a Knative resource event yields the Pod',
    type: 'google.cloud.pubsub.topic.v1.messagePublished',
    source: '//pubsub.googleapis.com/projects/p/topics/pods',
    data: pubsubEnvelope(base64Json(thePod), { 'ce-type': 'dev.knative.apiserver.resource.update' }),
    want: (mode) => ({
      type: 'object',
      verb: 'update',
      object: thePod,
      origin: {
        bridge: 'gcp-pubsub',
        transport: mode,
        cloudEvent: {
          id: 'e-1',
          source: '//pubsub.googleapis.com/projects/p/topics/pods',
          type: 'google.cloud.pubsub.topic.v1.messagePublished',
        },
        pubsub: { messageId: 'm-1', subscription: 'projects/p/subscriptions/kube-tidy', payload: 'knative-apiserversource' },
      },
    }),
  },
  {
    name: 'an Eventarc Pub/Sub event carrying an Argo payload yields the Pod and its old state',
    type: 'google.cloud.pubsub.topic.v1.messagePublished',
    data: pubsubEnvelope(base64Json(argoPayload('UPDATE', thePod, oldPod))),
    want: () => ({ type: 'object', verb: 'update', object: thePod, oldObject: oldPod }),
  },
  {
    name: 'an Eventarc Pub/Sub event carrying a sweep shard a sweep published on GCP yields the shard',
    type: 'google.cloud.pubsub.topic.v1.messagePublished',
    data: (() => {
      const m = pubSubMessage(shardEvent(aShard, 'kube-tidy.dev/sweep/p1'));
      return pubsubEnvelope(m.data, m.attributes);
    })(),
    want: (mode) => ({ type: 'shard', shard: aShard, origin: { bridge: 'gcp-pubsub', transport: mode, pubsub: { payload: 'kube-tidy-shard' } } }),
  },
];

describe('decodeEvent: every bridge format in both CloudEvents HTTP modes', () => {
  for (const mode of modes) {
    for (const c of cases) {
      it(`${c.name} (${mode} mode)`, () => {
        const req = cloudEvent(mode, { type: c.type, ...(c.source ? { source: c.source } : {}), ...subjectFor(c) }, c.data);
        expect(decodeEvent(req)).toMatchObject(c.want(mode));
      });
    }
  }
});

// Knative sets a subject on its events; the table checks it is carried into the origin.
function subjectFor(c: Case): { subject?: string } {
  return c.type.startsWith('dev.knative.apiserver.') ? { subject: '/apis/v1/namespaces/ml/pods/job-a-x1' } : {};
}

describe('decodeIfCloudEvent, for endpoints a schedule calls', () => {
  it.each(['binary', 'structured'] as Mode[])('decodes a %s-mode tick', (mode) => {
    expect(decodeIfCloudEvent(cloudEvent(mode, { type: 'dev.knative.sources.ping' }, {}))?.type).toBe('tick');
  });

  it('leaves a plain POST alone, without reading its body', () => {
    expect(decodeIfCloudEvent({ headers: { 'content-type': 'application/json' }, body: '{"not json' })).toBeUndefined();
  });

  it('counts any ce- header as binary mode, and refuses an incomplete one', () => {
    expect(() => decodeIfCloudEvent({ headers: { 'ce-type': 'dev.knative.sources.ping' }, body: '{}' })).toThrow(/ce-/);
  });

  it('decodes a raw Pub/Sub push (no CloudEvent headers) instead of taking it for a plain POST, and refuses a bad one with its field path', () => {
    const json = { 'content-type': 'application/json' };
    const bad = { message: { data: '%%%not base64', messageId: '1' }, subscription: 'projects/p/subscriptions/s' };
    expect(() => decodeIfCloudEvent({ headers: json, body: bad })).toThrow(/body\.message\.data is not valid base64/);
    expect(() => decodeIfCloudEvent({ headers: json, body: JSON.stringify(bad) })).toThrow(/body\.message\.data is not valid base64/);
    expect(() => decodeIfCloudEvent({ headers: json, body: { message: { data: 42 } } })).toThrow(/body\.message\.data/);
    expect(() => decodeIfCloudEvent({ headers: json, body: { subscription: 'projects/p/subscriptions/s' } })).toThrow(/body\.message/);
    expect(decodeIfCloudEvent({ headers: json, body: {} })).toBeUndefined();
    expect(decodeIfCloudEvent({ headers: json, body: { message: 'hello' } })).toBeUndefined();
  });
});
