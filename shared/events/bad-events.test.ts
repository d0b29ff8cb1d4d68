import { describe, expect, it } from 'vitest';
import {
  API_SERVER,
  argoPayload,
  base64Json,
  binaryHeaders,
  cloudEvent,
  pod,
  pubsubEnvelope,
} from '../../test/fixtures/events/requests.js';
import { decodeEvent } from './decode.js';
import { BadEventError } from './errors.js';
import type { HttpRequestLike } from './types.js';

const thePod = pod('job-a-x1');
const { uid: _uid, ...metaWithoutUid } = thePod.metadata;
const podWithoutUid = { ...thePod, metadata: metaWithoutUid };
const structuredHeaders = { 'content-type': 'application/cloudevents+json' };
const structured = (event: Record<string, unknown>): HttpRequestLike => ({ headers: structuredHeaders, body: event });
const pubsubEvent = (envelope: unknown) =>
  cloudEvent('binary', { type: 'google.cloud.pubsub.topic.v1.messagePublished', source: '//pubsub.googleapis.com/projects/p/topics/t' }, envelope);

interface BadCase {
  name: string;
  req: HttpRequestLike;
  status: 400 | 415 | 422;
  /** The whole message, or a regexp when part of it comes from elsewhere (JSON.parse). */
  message: string | RegExp;
}

const cases: BadCase[] = [
  // --- CloudEvents framing
  {
    name: 'binary mode without ce-specversion is a 400 naming the missing header',
    req: { headers: binaryHeaders({ 'ce-specversion': undefined }), body: thePod },
    status: 400,
    message: 'binary-mode CloudEvent is missing header ce-specversion',
  },
  {
    name: 'binary mode with only ce-type is a 400 naming all three missing headers',
    req: { headers: { 'ce-type': 'dev.knative.apiserver.resource.add' }, body: thePod },
    status: 400,
    message: 'binary-mode CloudEvent is missing headers ce-id, ce-source, ce-specversion',
  },
  {
    name: 'binary mode with an empty ce-id counts it as missing',
    req: { headers: binaryHeaders({ 'ce-id': '' }), body: thePod },
    status: 400,
    message: 'binary-mode CloudEvent is missing header ce-id',
  },
  {
    name: 'binary mode with specversion 0.3 is a 400 saying only 1.0 is accepted',
    req: { headers: binaryHeaders({ 'ce-specversion': '0.3' }), body: thePod },
    status: 400,
    message: 'unsupported CloudEvents specversion "0.3": only 1.0 is accepted',
  },
  {
    name: 'binary mode with a body that is not JSON is a 400 saying so',
    req: { headers: binaryHeaders(), body: '{"apiVersion": "v1",' },
    status: 400,
    message: /^CloudEvent data \(request body\) is not valid JSON: /,
  },
  {
    name: 'binary mode with XML data is a 415',
    req: { headers: binaryHeaders({ 'content-type': 'application/xml' }), body: '<pod/>' },
    status: 415,
    message: 'data content type application/xml is not supported: CloudEvent data must be JSON',
  },
  {
    name: 'binary mode with an invalid extension name is a 400 from CloudEvent validation',
    req: { headers: binaryHeaders({ 'ce-bad_name': 'x' }), body: thePod },
    status: 400,
    message: 'invalid CloudEvent: invalid attribute name: "bad_name"',
  },
  {
    name: 'structured mode without id and specversion is a 400 naming both',
    req: structured({ type: 'dev.knative.apiserver.resource.add', source: API_SERVER, data: thePod }),
    status: 400,
    message: 'structured CloudEvent is missing required attributes id, specversion',
  },
  {
    name: 'structured mode with a non-string id is a 400 from CloudEvent validation',
    req: structured({ id: 7, type: 'dev.knative.apiserver.resource.add', source: API_SERVER, specversion: '1.0', data: thePod }),
    status: 400,
    message: 'invalid CloudEvent: id: must be string',
  },
  {
    name: 'structured mode with a body that is not JSON is a 400 saying so',
    req: { headers: structuredHeaders, body: '{"id":' },
    status: 400,
    message: /^structured CloudEvent body is not valid JSON: /,
  },
  {
    name: 'structured mode with a JSON array body is a 400',
    req: { headers: structuredHeaders, body: '[]' },
    status: 400,
    message: 'structured CloudEvent body must be a JSON object',
  },
  {
    name: 'structured mode with an empty body is a 400',
    req: { headers: structuredHeaders, body: '' },
    status: 400,
    message: 'structured CloudEvent body is empty',
  },
  {
    name: 'a batch of CloudEvents is a 415',
    req: { headers: { 'content-type': 'application/cloudevents-batch+json' }, body: '[]' },
    status: 415,
    message: 'batched CloudEvents (application/cloudevents-batch+json) are not supported: send one event per request',
  },
  {
    name: 'an unknown CloudEvent type is a 422 listing what is accepted',
    req: cloudEvent('binary', { type: 'com.example.thing' }, {}),
    status: 422,
    message:
      'unsupported CloudEvent type "com.example.thing": this endpoint accepts dev.knative.apiserver.resource.{add,update,delete}, dev.knative.apiserver.ref.{add,update,delete}, dev.knative.sources.ping, "resource" (Argo Events), google.cloud.pubsub.topic.v1.messagePublished',
  },
  {
    name: 'a Knative type with an unknown verb is a 422',
    req: cloudEvent('structured', { type: 'dev.knative.apiserver.resource.patch' }, thePod),
    status: 422,
    message: /^unsupported CloudEvent type "dev.knative.apiserver.resource.patch"/,
  },
  // --- Knative data
  {
    name: 'resource mode data that is not an object is a 400 at data',
    req: { headers: binaryHeaders(), body: '"just text"' },
    status: 400,
    message: 'invalid dev.knative.apiserver.resource.update data: data: expected object, received string',
  },
  {
    name: 'a resource mode object without metadata.uid is a 400 naming data.metadata.uid',
    req: cloudEvent('structured', { type: 'dev.knative.apiserver.resource.update' }, podWithoutUid),
    status: 400,
    message: 'invalid dev.knative.apiserver.resource.update data: data.metadata.uid: expected string, received undefined',
  },
  {
    name: 'every problem in a resource mode object is reported at once',
    req: cloudEvent('binary', { type: 'dev.knative.apiserver.resource.add' }, { kind: 'Pod', metadata: { name: '', uid: 5 } }),
    status: 400,
    message:
      'invalid dev.knative.apiserver.resource.add data: data.apiVersion: expected string, received undefined; data.metadata.name: must be a non-empty string; data.metadata.uid: expected string, received number',
  },
  {
    name: 'a ref without name is a 400 naming data.name',
    req: cloudEvent('binary', { type: 'dev.knative.apiserver.ref.add' }, { apiVersion: 'v1', kind: 'Pod', namespace: 'ml' }),
    status: 400,
    message: 'invalid dev.knative.apiserver.ref.add data: data.name: expected string, received undefined',
  },
  // --- Argo data
  {
    name: 'an Argo payload with an unknown type is a 400 listing the allowed ones',
    req: cloudEvent('binary', { type: 'resource', source: 'k8s-pods' }, { ...argoPayload('ADD', thePod), type: 'PATCH' }),
    status: 400,
    message: 'invalid Argo Events resource payload: data.type: expected one of "ADD"|"UPDATE"|"DELETE"',
  },
  {
    name: 'an Argo payload whose body has no uid is a 400 naming data.body.metadata.uid',
    req: cloudEvent('structured', { type: 'resource', source: 'k8s-pods' }, argoPayload('UPDATE', podWithoutUid)),
    status: 400,
    message: 'invalid Argo Events resource payload: data.body.metadata.uid: expected string, received undefined',
  },
  // --- Pub/Sub
  {
    name: 'Pub/Sub message data that is not base64 is a 400',
    req: pubsubEvent(pubsubEnvelope('this is not base64!', { 'ce-type': 'dev.knative.apiserver.resource.update' })),
    status: 400,
    message: 'data.message.data is not valid base64',
  },
  {
    name: 'Pub/Sub message data that decodes to something other than JSON is a 400',
    req: { headers: {}, body: pubsubEnvelope(Buffer.from('hello').toString('base64')) },
    status: 400,
    message: /^body\.message\.data \(base64-decoded\) is not valid JSON: /,
  },
  {
    name: 'a Pub/Sub envelope without message.data is a 400 naming the field',
    req: pubsubEvent({ message: { messageId: 'm-1' }, subscription: 's' }),
    status: 400,
    message: 'invalid Pub/Sub push envelope: data.message.data: expected string, received undefined',
  },
  {
    name: 'a Pub/Sub message with no ce-type and no recognisable payload is a 422',
    req: pubsubEvent(pubsubEnvelope(base64Json(thePod))),
    status: 422,
    message: /^cannot tell what the Pub\/Sub message carries: set attribute ce-type/,
  },
  {
    name: 'a Pub/Sub message whose ce-type is not a Kubernetes event is a 422',
    req: pubsubEvent(pubsubEnvelope(base64Json(thePod), { 'ce-type': 'dev.knative.sources.ping' })),
    status: 422,
    message: /^unsupported event type "dev.knative.sources.ping" inside a Pub\/Sub message/,
  },
  {
    name: 'a Pub/Sub Knative event without uid is a 400 naming the decoded field',
    req: pubsubEvent(pubsubEnvelope(base64Json(podWithoutUid), { 'ce-type': 'dev.knative.apiserver.resource.add' })),
    status: 400,
    message: 'invalid dev.knative.apiserver.resource.add data: data.message.data.metadata.uid: expected string, received undefined',
  },
  // --- plain bodies
  {
    name: 'a plain body that is not JSON is a 400',
    req: { headers: { 'content-type': 'application/json' }, body: 'kind: Pod' },
    status: 400,
    message: /^body is not valid JSON: /,
  },
  {
    name: 'an empty plain body is a 400',
    req: { headers: {}, body: undefined },
    status: 400,
    message: 'body is empty',
  },
  {
    name: 'a form-encoded plain body is a 415',
    req: { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b' },
    status: 415,
    message: 'content-type application/x-www-form-urlencoded is not supported: send a JSON body (application/json) or a CloudEvent',
  },
  {
    name: 'a manual Pod without metadata.uid is a 400 naming body.metadata.uid',
    req: { headers: {}, body: podWithoutUid },
    status: 400,
    message: 'invalid Kubernetes object in the request body: body.metadata.uid: expected string, received undefined',
  },
  {
    name: 'a manual PodList is a 400 asking for one object',
    req: { headers: {}, body: { apiVersion: 'v1', kind: 'PodList', items: [thePod] } },
    status: 400,
    message: 'body is a PodList, not one object: post one Kubernetes object per request',
  },
  {
    name: 'a manual JSON array is a 400 at body',
    req: { headers: {}, body: [thePod] },
    status: 400,
    message: 'invalid Kubernetes object in the request body: body: expected object, received array',
  },
  {
    name: 'a plain body that is invalid UTF-8 is a 400',
    req: { headers: {}, body: Buffer.from([0x7b, 0xff, 0x7d]) },
    status: 400,
    message: 'body is not valid UTF-8',
  },
];

describe('decodeEvent: bad input is a BadEventError with a 4xx that says what is wrong', () => {
  for (const c of cases) {
    it(c.name, () => {
      let caught: unknown;
      try {
        decodeEvent(c.req);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(BadEventError);
      const err = caught as BadEventError;
      expect(err.status).toBe(c.status);
      if (typeof c.message === 'string') expect(err.message).toBe(c.message);
      else expect(err.message).toMatch(c.message);
    });
  }
});
