import { describe, expect, it } from 'vitest';
import { argoPayload, base64Json, pod, pubsubEnvelope } from '../../test/fixtures/events/requests.js';
import { decodeEvent } from './decode.js';
import type { InternalEvent } from './types.js';

const thePod = pod('job-a-x1');
const oldPod = pod('job-a-x1', { resourceVersion: '41' });
const ref = { apiVersion: 'v1', kind: 'Pod', name: 'job-a-x1', namespace: 'ml' };

describe('decodeEvent: plain JSON bodies without CloudEvent headers', () => {
  const plain: { name: string; body: unknown; headers?: Record<string, string>; want: Partial<InternalEvent> }[] = [
    {
      name: 'a Pod posted as an object is a manual update of that Pod',
      body: thePod,
      want: { type: 'object', verb: 'update', object: thePod, origin: { bridge: 'manual', transport: 'plain' } },
    },
    {
      name: 'a Pod posted as a JSON string is a manual update of that Pod',
      body: JSON.stringify(thePod),
      headers: { 'content-type': 'application/json' },
      want: { type: 'object', verb: 'update', object: thePod },
    },
    {
      name: 'a Pod posted as a Buffer is a manual update of that Pod',
      body: Buffer.from(JSON.stringify(thePod)),
      headers: { 'content-type': 'application/json; charset=utf-8' },
      want: { type: 'object', verb: 'update', object: thePod },
    },
    {
      name: 'an Argo payload posted by a Sensor HTTP trigger yields the Pod with plain transport',
      body: argoPayload('UPDATE', thePod, oldPod),
      want: { type: 'object', verb: 'update', object: thePod, oldObject: oldPod, origin: { bridge: 'argo-events', transport: 'plain' } },
    },
    {
      name: 'a raw Pub/Sub push carrying a Knative ref event yields a reference',
      body: pubsubEnvelope(base64Json(ref), { 'ce-type': 'dev.knative.apiserver.ref.add' }),
      want: {
        type: 'reference',
        verb: 'add',
        ref,
        origin: {
          bridge: 'gcp-pubsub',
          transport: 'plain',
          pubsub: { messageId: 'm-1', subscription: 'projects/p/subscriptions/kube-tidy', payload: 'knative-apiserversource' },
        },
      },
    },
  ];
  for (const c of plain) {
    it(c.name, () => {
      expect(decodeEvent({ headers: c.headers ?? {}, body: c.body })).toMatchObject(c.want);
    });
  }

  it('a manual Pod keeps every field it was sent with', () => {
    const rich = { ...thePod, spec: { nodeName: 'n1', containers: [{ name: 'c' }] } };
    const event = decodeEvent({ headers: {}, body: rich });
    expect(event.type === 'object' && event.object).toEqual(rich);
  });
});
