// The bridge against a real API server: what a pod's life looks like as CloudEvents, and
// that it is exactly what Knative's ApiServerSource (Resource mode) would have sent.
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSink, type TestSink } from '../../fixtures/http-sink.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { acceptedFor, bridgeFor, decoded, LABEL, pod } from './helpers.js';

const ns = testNamespace('bridge');
const kc = sharedCluster().kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const batch = kc.makeApiClient(BatchV1Api);
const server = kc.getCurrentCluster()?.server ?? '';
let sink: TestSink;

beforeAll(async () => {
  sink = await startTestSink();
});
afterAll(() => sink?.close());

describe('a pod created, updated and deleted while the bridge runs', () => {
  it('arrives as add, update(s), delete in order, in Knative Resource mode, each decoding to the object sent', async () => {
    // Exists before the bridge starts, and never changes (gated, so never scheduled).
    await core.createNamespacedPod({ namespace: ns.name, body: pod('before', 'life', { schedulingGates: [{ name: 'kube-tidy.dev/hold' }] }) });
    const bridge = await bridgeFor(sink, ns.name, 'life');
    try {
      await core.createNamespacedPod({ namespace: ns.name, body: pod('p', 'life') });
      await core.patchNamespacedPod({ name: 'p', namespace: ns.name, body: [{ op: 'add', path: '/metadata/annotations', value: { touched: 'yes' } }] });
      await core.deleteNamespacedPod({ name: 'p', namespace: ns.name, gracePeriodSeconds: 0 });
      await waitFor('the delete event for p', async () => acceptedFor(sink, 'p').some((r) => r.headers['ce-type'] === 'dev.knative.apiserver.resource.delete'));
    } finally {
      await bridge.stop();
    }

    const events = acceptedFor(sink, 'p');
    const types = events.map((r) => String(r.headers['ce-type']).replace('dev.knative.apiserver.resource.', ''));
    expect(types[0]).toBe('add');
    expect(types.at(-1)).toBe('delete');
    expect(types.slice(1, -1).every((t) => t === 'update')).toBe(true);
    const rvs = events.map((r) => Number(JSON.parse(r.body).metadata.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
    const touched = events.find(
      (r) => r.headers['ce-type'] === 'dev.knative.apiserver.resource.update' && JSON.parse(r.body).metadata.annotations?.touched === 'yes',
    );
    expect(touched, 'an update carrying the new annotation').toBeDefined();

    for (const r of events) {
      expect(r.headers).toMatchObject({
        'ce-specversion': '1.0',
        'ce-source': server,
        'ce-subject': `/apis/v1/namespaces/${ns.name}/pods/p`,
        'ce-kind': 'Pod',
        'ce-apiversion': 'v1',
        'ce-name': 'p',
        'ce-namespace': ns.name,
      });
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.headers['ce-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const event = decoded(r);
      expect(event).toMatchObject({
        type: 'object',
        verb: r.headers['ce-type']?.toString().split('.').pop(),
        origin: { bridge: 'knative-apiserversource', transport: 'binary' },
      });
      if (event.type !== 'object') throw new Error('not an object event');
      expect(event.object).toEqual(JSON.parse(r.body));
      expect(event.object.metadata.uid).toBe(JSON.parse(events[0]!.body).metadata.uid);
    }
    expect(new Set(events.map((r) => r.headers['ce-id'])).size).toBe(events.length);
    // The pre-existing pod was there all along and never changed: no event at all.
    expect(sink.received.filter((r) => r.headers['ce-name'] === 'before')).toEqual([]);
  });
});

describe('Jobs', () => {
  it('are watched under batch/v1 and named as Knative names them', async () => {
    const bridge = await bridgeFor(sink, ns.name, 'job', { kinds: ['Pod', 'Job'] });
    try {
      await batch.createNamespacedJob({
        namespace: ns.name,
        body: { metadata: { name: 'j', labels: { [LABEL]: 'job' } }, spec: { suspend: true, template: pod('unused', 'job') } },
      });
      await waitFor('the add event for job j', async () => acceptedFor(sink, 'j').find((r) => r.headers['ce-kind'] === 'Job'));
    } finally {
      await bridge.stop();
    }
    const [add] = acceptedFor(sink, 'j');
    expect(add?.headers).toMatchObject({
      'ce-type': 'dev.knative.apiserver.resource.add',
      'ce-subject': `/apis/batch/v1/namespaces/${ns.name}/jobs/j`,
      'ce-apiversion': 'batch/v1',
      'ce-kind': 'Job',
    });
    const event = decoded(add!);
    expect(event.type === 'object' && event.object.kind).toBe('Job');
  });
});
