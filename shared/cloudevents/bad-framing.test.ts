import { describe } from 'vitest';
import { API_SERVER, binaryHeaders, cloudEvent, pod } from '../../test/fixtures/events/requests.js';
import { itRejects, type BadCase } from '../../test/fixtures/events/expect-bad.js';
import type { HttpRequestLike } from './types.js';

// Requests that fail before any payload is looked at: CloudEvents framing and plain bodies.

const thePod = pod('job-a-x1');
const { uid: _uid, ...metaWithoutUid } = thePod.metadata;
const podWithoutUid = { ...thePod, metadata: metaWithoutUid };
const structuredHeaders = { 'content-type': 'application/cloudevents+json' };
const structured = (event: Record<string, unknown>): HttpRequestLike => ({ headers: structuredHeaders, body: event });

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
      'unsupported CloudEvent type "com.example.thing": this endpoint accepts dev.knative.apiserver.resource.{add,update,delete}, dev.knative.apiserver.ref.{add,update,delete}, dev.knative.sources.ping, "resource" (Argo Events), google.cloud.pubsub.topic.v1.messagePublished, dev.kube-tidy.sweep.shard.v1',
  },
  {
    name: 'a Knative type with an unknown verb is a 422',
    req: cloudEvent('structured', { type: 'dev.knative.apiserver.resource.patch' }, thePod),
    status: 422,
    message: /^unsupported CloudEvent type "dev.knative.apiserver.resource.patch"/,
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

describe('bad framing and bad plain bodies are a BadEventError with a 4xx that says what is wrong', () => {
  itRejects(cases);
});
