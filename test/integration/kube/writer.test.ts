// The one writer (shared/kube/writer.ts) against the real API server: what it promises for
// every family, checked on stored pods read back through the plain client.
import { CoreV1Api, EventsV1Api, PolicyV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { kubeClients } from '../../../shared/kube/clients.js';
import { toPod } from '../../../shared/kube/from-client.js';
import { removalTarget } from '../../../shared/kube/evict-only.js';
import { ClusterWriter, WriteRefusedError } from '../../../shared/kube/writer.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { liveUid, makePod } from './fixtures.js';
import { testTicket } from '../../fixtures/ticket.js';

const ns = testNamespace('kube-writer');
const kc = sharedCluster().kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const clients = kubeClients(kc);
const guarded = { budget: 'writer-none-may-go' };
const writer = (o: Partial<ConstructorParameters<typeof ClusterWriter>[1]> = {}) =>
  new ClusterWriter(clients, { dryRun: false, recordEvents: true, protectedNamespaces: ['kube-system'], ...o });
const read = async (name: string) => toPod(await core.readNamespacedPod({ namespace: ns.name, name }));
const tidyEvents = async (uid: string) =>
  (await kc.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns.name, fieldSelector: `regarding.uid=${uid}` })).items.filter(
    (e) => e.reportingController === 'kube-tidy.dev/kube-tidy',
  );

beforeAll(async () => {
  const policy = kc.makeApiClient(PolicyV1Api);
  await policy.createNamespacedPodDisruptionBudget({
    namespace: ns.name,
    body: { metadata: { name: 'guard' }, spec: { maxUnavailable: 0, selector: { matchLabels: guarded } } },
  });
  await waitFor('the budget observed', async () => {
    const pdb = await policy.readNamespacedPodDisruptionBudget({ name: 'guard', namespace: ns.name });
    return pdb.status?.observedGeneration === pdb.metadata?.generation && pdb.status?.disruptionsAllowed === 0;
  });
});

describe('ClusterWriter.removePod', () => {
  it('never DELETEs a pod stored Running: it evicts, and the budget holds', async () => {
    await makePod(core, ns.name, 'running-guarded', { labels: guarded });
    const r = await writer().removePod(removalTarget(await read('running-guarded')), testTicket(), 'test');
    expect(r).toMatchObject({ action: 'evict', outcome: 'blocked', disruptionBudget: true });
    expect(await liveUid(core, ns.name, 'running-guarded')).toBeDefined();
  });

  it('DELETEs a pod stored Failed, with one Event', async () => {
    const made = await makePod(core, ns.name, 'failed', { exitCode: 3, phase: 'Failed' });
    const r = await writer().removePod(removalTarget(await read('failed')), testTicket(), 'test');
    expect(r).toMatchObject({ action: 'delete', outcome: 'deleted' });
    expect(await tidyEvents(made.uid)).toHaveLength(1);
  });

  it('ties a delete to the stored resourceVersion: a pod changed since it was read is stale and stays', async () => {
    await makePod(core, ns.name, 'changed', { exitCode: 1, phase: 'Failed' });
    const seen = removalTarget(await read('changed'));
    await core.patchNamespacedPod({ namespace: ns.name, name: 'changed', body: [{ op: 'add', path: '/metadata/labels', value: { touched: 'yes' } }] });
    const r = await writer().removePod(seen, testTicket(), 'test');
    expect(r.outcome).toBe('stale');
    expect(await liveUid(core, ns.name, 'changed')).toBeDefined();
  });

  it('records one Event when ten deliveries race for the same pod', async () => {
    const made = await makePod(core, ns.name, 'raced', { exitCode: 3, phase: 'Failed' });
    const seen = removalTarget(await read('raced'));
    const results = await Promise.all(Array.from({ length: 10 }, () => writer().removePod(seen, testTicket(), 'test')));
    expect(results.filter((r) => r.outcome === 'deleted')).toHaveLength(1);
    expect(await tidyEvents(made.uid)).toHaveLength(1);
  });

  it('writes nothing in a dry run (the API server admits, nothing persists, no Event)', async () => {
    const made = await makePod(core, ns.name, 'dry', { exitCode: 3, phase: 'Failed' });
    const r = await writer({ dryRun: true }).removePod(removalTarget(await read('dry')), testTicket(), 'test');
    expect(r).toMatchObject({ outcome: 'deleted', dryRun: true });
    expect(await liveUid(core, ns.name, 'dry')).toBe(made.uid);
    expect(await tidyEvents(made.uid)).toHaveLength(0);
  });

  it('refuses any write in a protected namespace before sending it', async () => {
    await makePod(core, ns.name, 'protected', { exitCode: 3, phase: 'Failed' });
    const seen = removalTarget(await read('protected'));
    await expect(writer({ protectedNamespaces: [ns.name] }).removePod(seen, testTicket(), 'test')).rejects.toBeInstanceOf(WriteRefusedError);
    expect(await liveUid(core, ns.name, 'protected')).toBeDefined();
  });
});

describe('ClusterWriter.deleteConfigMap', () => {
  // A DELETE with a body is read from the body alone: a dryRun only in the query was a real delete.
  it('in a dry run deletes nothing (the dry run is in the DELETE body, where the API server reads it)', async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: 'retired' }, data: { a: '1' } } });
    expect(await writer({ dryRun: true }).deleteConfigMap(ns.name, 'retired', cm)).toBe('deleted');
    expect((await core.readNamespacedConfigMap({ namespace: ns.name, name: 'retired' })).metadata?.uid).toBe(cm.metadata?.uid);
    expect(await writer().deleteConfigMap(ns.name, 'retired', cm)).toBe('deleted');
    await expect(core.readNamespacedConfigMap({ namespace: ns.name, name: 'retired' })).rejects.toMatchObject({ code: 404 });
  });
});
