import fc from 'fast-check';
import type { CloudEvent } from 'cloudevents';
import { describe, expect, it } from 'vitest';
import { API_SERVER, pod } from '../../test/fixtures/events/requests.js';
import { decodeEvent } from './decode.js';
import { httpMessage, toApiServerSourceEvent } from './encode.js';
import type { KubeObject, Verb } from './types.js';

describe('toApiServerSourceEvent builds what Knative ApiServerSource sends in Resource mode', () => {
  const thePod = pod('job-a-x1');

  it('an updated Pod becomes a resource.update event with subject, extensions and the Pod as data', () => {
    const event = toApiServerSourceEvent('update', thePod, API_SERVER, 'id-1');
    expect(event).toMatchObject({
      specversion: '1.0',
      id: 'id-1',
      type: 'dev.knative.apiserver.resource.update',
      source: API_SERVER,
      subject: '/apis/v1/namespaces/ml/pods/job-a-x1',
      datacontenttype: 'application/json',
      kind: 'Pod',
      apiversion: 'v1',
      name: 'job-a-x1',
      namespace: 'ml',
      data: thePod,
    });
  });

  it('in binary mode the extensions travel as ce-kind, ce-apiversion, ce-name and ce-namespace', () => {
    const { headers } = httpMessage(toApiServerSourceEvent('add', thePod, API_SERVER, 'id-1'));
    expect(headers).toMatchObject({
      'ce-type': 'dev.knative.apiserver.resource.add',
      'ce-kind': 'Pod',
      'ce-apiversion': 'v1',
      'ce-name': 'job-a-x1',
      'ce-namespace': 'ml',
      'content-type': 'application/json',
    });
  });

  it('a cluster-scoped object gets no namespace extension', () => {
    const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'u-n1' } };
    const event = toApiServerSourceEvent('delete', node, API_SERVER, 'id-1');
    expect(event['namespace']).toBeUndefined();
    expect(event.subject).toBe('/apis/v1/namespaces//nodes/n1');
  });

  it('without an id it makes a fresh UUID each time, as Knative does', () => {
    const a = toApiServerSourceEvent('add', thePod, API_SERVER);
    const b = toApiServerSourceEvent('add', thePod, API_SERVER);
    expect(a.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(a.id).not.toBe(b.id);
  });
});

// Anything the local bridge can build, the decoder must accept unchanged, in both modes.
const dnsLabel = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/);
const kubeObject: fc.Arbitrary<KubeObject> = fc
  .record({
    apiVersion: fc.oneof(
      fc.constantFrom('v1', 'batch/v1', 'apps/v1', 'kubevirt.io/v1'),
      fc.tuple(dnsLabel, dnsLabel).map(([g, v]) => `${g}.example.com/${v}`),
    ),
    kind: fc.stringMatching(/^[A-Z][A-Za-z0-9]{0,20}$/),
    name: dnsLabel,
    namespace: fc.option(dnsLabel, { nil: undefined }),
    uid: fc.uuid(),
    resourceVersion: fc.option(fc.nat().map(String), { nil: undefined }),
    labels: fc.option(fc.dictionary(dnsLabel, dnsLabel), { nil: undefined }),
    status: fc.jsonValue(),
  })
  .map(({ apiVersion, kind, name, namespace, uid, resourceVersion, labels, status }) => ({
    apiVersion,
    kind,
    metadata: {
      name,
      uid,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
      ...(labels !== undefined ? { labels } : {}),
    },
    status,
  }));

describe('round trip: toApiServerSourceEvent -> HTTP -> decodeEvent', () => {
  it('every object, verb and mode decodes back to the same object and verb', () => {
    fc.assert(
      fc.property(
        kubeObject,
        fc.constantFrom<Verb>('add', 'update', 'delete'),
        fc.constantFrom('binary', 'structured'),
        fc.webUrl(),
        fc.uuid(),
        (object, verb, mode, source, id) => {
          const event: CloudEvent<KubeObject> = toApiServerSourceEvent(verb, object, source, id);
          const decoded = decodeEvent(httpMessage(event, mode));
          expect(decoded).toEqual({
            type: 'object',
            verb,
            // What went over the wire is JSON: compare with its JSON image.
            object: JSON.parse(JSON.stringify(object)) as unknown,
            origin: {
              bridge: 'knative-apiserversource',
              transport: mode,
              cloudEvent: { id, source, type: `dev.knative.apiserver.resource.${verb}`, subject: event.subject },
            },
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
