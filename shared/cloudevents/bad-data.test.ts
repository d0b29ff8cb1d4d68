import { describe } from 'vitest';
import { argoPayload, base64Json, binaryHeaders, cloudEvent, pod, pubsubEnvelope } from '../../test/fixtures/events/requests.js';
import { itRejects, type BadCase } from '../../test/fixtures/events/expect-bad.js';

// Well-framed events whose data fails its format's schema: every issue, with its field path.

const thePod = pod('job-a-x1');
const { uid: _uid, ...metaWithoutUid } = thePod.metadata;
const podWithoutUid = { ...thePod, metadata: metaWithoutUid };
const pubsubEvent = (envelope: unknown) =>
  cloudEvent('binary', { type: 'google.cloud.pubsub.topic.v1.messagePublished', source: '//pubsub.googleapis.com/projects/p/topics/t' }, envelope);

const cases: BadCase[] = [
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
];

describe('bad event data is a BadEventError with a 4xx naming every bad field', () => {
  itRejects(cases);
});
