import { describe, expect, it } from 'vitest';
import { API_SERVER, argoPayload, base64Json, pod } from '../../test/fixtures/events/requests.js';
import { decodeEvent } from './decode.js';
import { pubSubMessage } from './encode.js';
import { shardEvent, type SweepShard } from './shard.js';
import { BadEventError } from './errors.js';

const thePod = pod('job-a-x1');
const push = (data: string, message: Record<string, unknown> = {}) => ({
  headers: { 'content-type': 'application/json' },
  body: { message: { data, ...message }, subscription: 'projects/p/subscriptions/s' },
});

describe('Pub/Sub: how the carried payload is recognised', () => {
  it('a structured CloudEvent published as the message is decoded by its own type and data', () => {
    const inner = { specversion: '1.0', id: 'k-1', source: API_SERVER, type: 'dev.knative.apiserver.resource.delete', data: thePod };
    expect(decodeEvent(push(base64Json(inner), { messageId: 'm-9' }))).toMatchObject({
      type: 'object',
      verb: 'delete',
      object: thePod,
      origin: { bridge: 'gcp-pubsub', transport: 'plain', pubsub: { messageId: 'm-9', payload: 'knative-apiserversource' } },
    });
  });

  it('the ce-type attribute names a Knative type for bare object data', () => {
    const req = push(base64Json(thePod), { attributes: { 'ce-type': 'dev.knative.apiserver.resource.add' } });
    expect(decodeEvent(req)).toMatchObject({ type: 'object', verb: 'add', object: thePod });
  });

  it('ce-type "resource" marks an Argo payload even without sniffing', () => {
    const req = push(base64Json(argoPayload('DELETE', thePod)), { attributes: { 'ce-type': 'resource' } });
    expect(decodeEvent(req)).toMatchObject({ verb: 'delete', origin: { pubsub: { payload: 'argo-events' } } });
  });

  it('the snake_case message_id of the push format is used when messageId is absent', () => {
    const req = push(base64Json(argoPayload('ADD', thePod)), { message_id: 'm-snake' });
    expect(decodeEvent(req)).toMatchObject({ origin: { pubsub: { messageId: 'm-snake' } } });
  });
});

describe('Pub/Sub: a sweep shard (published by a sweep on GCP)', () => {
  const shard: SweepShard = { pass: 'p1', index: 2, of: 3, pods: [{ namespace: 'ml', name: 'job-a-x1', uid: 'uid-1' }] };

  it('published in the binding’s binary mode, it comes back from a raw push as the same shard', () => {
    const m = pubSubMessage(shardEvent(shard, 'kube-tidy.dev/sweep/p1'));
    expect(m.attributes).toMatchObject({
      'ce-type': 'dev.kube-tidy.sweep.shard.v1',
      'ce-id': 'p1-2',
      'ce-specversion': '1.0',
      'content-type': 'application/json',
    });
    expect(decodeEvent(push(m.data, { attributes: m.attributes, messageId: 'm-3' }))).toMatchObject({
      type: 'shard',
      shard,
      origin: { bridge: 'gcp-pubsub', pubsub: { messageId: 'm-3', payload: 'kube-tidy-shard' } },
    });
  });

  it('a malformed shard inside the message is a 400 naming the field inside the message', () => {
    const bad = { ...shard, pods: [{ namespace: 'ml', name: 'Not_A_Name', uid: 'uid-1' }] };
    const m = pubSubMessage(shardEvent(shard, 'x'));
    const req = push(Buffer.from(JSON.stringify(bad)).toString('base64'), { attributes: m.attributes });
    let err: unknown;
    try {
      decodeEvent(req);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BadEventError);
    expect((err as BadEventError).status).toBe(400);
    expect((err as BadEventError).issues).toEqual([expect.stringMatching(/^body\.message\.data\.pods\[0\]\.name: /)]);
  });
});
