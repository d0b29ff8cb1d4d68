import { describe, expect, it } from 'vitest';
import { API_SERVER, argoPayload, base64Json, pod } from '../../test/fixtures/events/requests.js';
import { decodeEvent } from './decode.js';

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
