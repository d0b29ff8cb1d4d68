// selectors.namespaces in standalone mode, against a real API server: the namespace set
// follows labels as they change (the server's label-selected watch), and the bridge delivers
// only events of objects in namespaces of the set, as an ApiServerSource with that
// namespaceSelector would.
import { randomBytes } from 'node:crypto';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, silentLogger, type Bridge } from '../../../shared/hosts/bridge/index.js';
import { watchNamespaces, type NamespaceSet } from '../../../shared/hosts/standalone/namespaces.js';
import { startTestSink, type TestSink } from '../../fixtures/http-sink.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { acceptedFor, LABEL, pod } from './helpers.js';

const inside = testNamespace('bridge-ns-in');
const outside = testNamespace('bridge-ns-out');
const kc = sharedCluster().kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
// Unique per run: no other namespace of the shared cluster carries it.
const PICKED = 'kube-tidy.dev/picked';
const token = randomBytes(4).toString('hex');
const label = (namespace: string, value: string | null) =>
  core.patchNamespace({ name: namespace, body: { metadata: { labels: { [PICKED]: value } } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
let sink: TestSink;
let set: NamespaceSet;
let bridge: Bridge;

beforeAll(async () => {
  sink = await startTestSink();
  await label(inside.name, token);
  set = await watchNamespaces({ kubeConfig: kc, labelSelector: `${PICKED}=${token}`, log: silentLogger });
  bridge = await startBridge({
    kubeConfig: kc,
    sink: sink.url,
    labelSelector: `${LABEL}=ns-selector`,
    accept: (o) => set.has(o.metadata.namespace ?? ''),
    statsIntervalMs: 0,
    log: silentLogger,
  });
});
afterAll(async () => {
  await bridge?.stop();
  await set?.stop();
  await sink?.close();
});

const create = (namespace: string, name: string) => core.createNamespacedPod({ namespace, body: pod(name, 'ns-selector') });
const addOf = (name: string) => acceptedFor(sink, name).filter((r) => r.headers['ce-type'] === 'dev.knative.apiserver.resource.add');

describe('selectors.namespaces (standalone)', () => {
  it('starts with exactly the namespaces the selector matches', () => {
    expect(set.has(inside.name)).toBe(true);
    expect(set.has(outside.name)).toBe(false);
    expect(set.size()).toBe(1);
  });

  it('delivers events from a selected namespace and skips the others', async () => {
    const skippedBefore = bridge.stats().skipped;
    await create(outside.name, 'a-out');
    await create(inside.name, 'a-in');
    await waitFor('a-in delivered', async () => addOf('a-in').length > 0);
    await waitFor('a-out seen and skipped', async () => bridge.stats().skipped > skippedBefore);
    expect(acceptedFor(sink, 'a-out')).toEqual([]);
  });

  it('follows labels: a namespace that gains the label joins, one that loses it leaves', async () => {
    await label(outside.name, token);
    await waitFor('the outside namespace to join', async () => set.has(outside.name));
    await create(outside.name, 'b-out');
    await waitFor('b-out delivered', async () => addOf('b-out').length > 0);

    await label(inside.name, null);
    await waitFor('the inside namespace to leave', async () => !set.has(inside.name));
    const skippedBefore = bridge.stats().skipped;
    await create(inside.name, 'c-in');
    await waitFor('c-in seen and skipped', async () => bridge.stats().skipped > skippedBefore);
    expect(acceptedFor(sink, 'c-in')).toEqual([]);
  });
});
