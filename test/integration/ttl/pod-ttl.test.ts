import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { sweep } from '../../../functions/sweep.js';
import type { Pod } from '../../../shared/model/objects.js';
import { expiryOf } from '../../../shared/strategies/pod-ttl/index.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { policyDoc } from '../../fixtures/policy.js';
import { exists, knativeRequest, pingRequest, runPod, runtimeFor, send, serve } from '../functions/setup.js';

// PodTTL on the real control plane: pods carrying Kyverno's TTL label or kube-janitor's
// annotations go once their time has come and not before; the event path answers with the
// expiry as eligibleAt (what acting at eligibility works from); a protected namespace is never
// touched; an unreadable value never removes a pod. The pods the event path is told about are
// not the ones the sweep is judged on: whatever acts at eligibleAt for the former, only the
// sweep can have removed the latter.

const ns = testNamespace('ttl');
const guarded = testNamespace('ttl-protected');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);

// Bare Failed pods, so that DefaultEvictor lets them through once FailedBarePods is off. Only the
// protected namespace's test reaches into that namespace: the others run without protecting it.
const policy = (namespaces = [ns.name]) =>
  policyDoc([{ name: 'PodTTL', args: { namespaces: { include: namespaces } } }], {
    evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
  });

/** Kyverno's absolute layout (2006-01-02T150405Z: a label value may hold no colon) and kube-janitor's. */
const kyvernoTime = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/:/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
const janitorTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const EXPIRED = { 'cleanup.kyverno.io/ttl': '2020-01-01' };

async function mark(name: string, meta: { labels?: Record<string, string>; annotations?: Record<string, string> }) {
  await core().patchNamespacedPod({ namespace: ns.name, name, body: { metadata: meta } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
}

const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));

describe('PodTTL', () => {
  let expiry = 0;

  beforeAll(async () => {
    await Promise.all([
      ...['event-kyverno', 'event-janitor', 'sweep-kyverno', 'sweep-janitor'].map((name) => runPod(core(), ns.name, name, { exitCode: 2 })),
      runPod(core(), ns.name, 'janitor-ttl', { exitCode: 2, annotations: { 'janitor/ttl': '1h' } }),
      runPod(core(), ns.name, 'unreadable', { exitCode: 2, labels: { 'cleanup.kyverno.io/ttl': 'soon' } }),
      runPod(core(), ns.name, 'expired-long-ago', { exitCode: 2, labels: EXPIRED }),
      // Running and bare: the evict annotation lets it past DefaultEvictor, as a user opting a pod in would.
      runPod(core(), ns.name, 'running', { labels: EXPIRED, annotations: { 'descheduler.alpha.kubernetes.io/evict': 'true' } }),
      runPod(core(), guarded.name, 'protected', { exitCode: 2, labels: EXPIRED }),
    ]);
    // The expiry is set once the pods exist, a whole second (both layouts have no fraction)
    // far enough ahead for the checks before it, however long the pods took to start.
    expiry = Math.ceil((Date.now() + 10_000) / 1000) * 1000;
    for (const name of ['event-kyverno', 'sweep-kyverno']) await mark(name, { labels: { 'cleanup.kyverno.io/ttl': kyvernoTime(expiry) } });
    for (const name of ['event-janitor', 'sweep-janitor']) await mark(name, { annotations: { 'janitor/expires': janitorTime(expiry) } });
  });

  it('answers a pod event with the expiry as eligibleAt, for each convention; an expired pod goes on the event', async () => {
    const agent = serve(podTerminated, await runtimeFor(policy()));
    const answer = async (name: string) =>
      (await send(agent, knativeRequest('binary', 'update', await core().readNamespacedPod({ namespace: ns.name, name })))).body;
    for (const name of ['event-kyverno', 'event-janitor']) {
      expect(await answer(name)).toMatchObject({ outcome: 'nothing-to-do', eligibleAt: new Date(expiry).toISOString() });
    }
    expect(Date.now()).toBeLessThan(expiry);
    // janitor/ttl counts from the pod's creation.
    const ttl = await core().readNamespacedPod({ namespace: ns.name, name: 'janitor-ttl' });
    expect((await answer('janitor-ttl')).eligibleAt).toBe(new Date(new Date(ttl.metadata!.creationTimestamp!).getTime() + 3_600_000).toISOString());
    // An unreadable value is never eligible.
    expect(await answer('unreadable')).not.toHaveProperty('eligibleAt');
    expect(await answer('expired-long-ago')).toMatchObject({ outcome: 'deleted', result: { strategy: 'PodTTL', action: 'delete' } });
    // A running pod is evicted, through the Eviction API (so a PodDisruptionBudget would hold), not deleted.
    expect(await answer('running')).toMatchObject({ outcome: 'evicted', result: { strategy: 'PodTTL', action: 'evict' } });
  });

  it('a sweep keeps the pods before expiry and removes them after it, never one whose value it cannot read', async () => {
    const agent = serve(sweep, await runtimeFor(policy()));
    const removedBy = (body: { results: { namespace: string; name: string; outcome: string }[] }) =>
      body.results
        .filter((r) => r.namespace === ns.name && r.name.startsWith('sweep-') && r.outcome === 'deleted')
        .map((r) => r.name)
        .sort();
    const before = await send(agent, pingRequest());
    expect(before.status).toBe(200);
    // The check is only worth something if it really ran before the expiry.
    expect(Date.now()).toBeLessThan(expiry);
    expect(removedBy(before.body)).toEqual([]);
    for (const name of ['sweep-kyverno', 'sweep-janitor', 'janitor-ttl', 'unreadable']) expect(await exists(core(), ns.name, name)).toBeDefined();

    await sleepUntil(expiry + 500);
    const after = await send(agent, pingRequest());
    expect(after.status).toBe(200);
    expect(removedBy(after.body)).toEqual(['sweep-janitor', 'sweep-kyverno']);
    expect(after.body.kept).toContainEqual({
      namespace: ns.name,
      name: 'unreadable',
      strategy: 'PodTTL',
      reason: expect.stringContaining('"soon" is neither'),
    });
    for (const name of ['sweep-kyverno', 'sweep-janitor']) expect(await exists(core(), ns.name, name)).toBeUndefined();
    // The pods the event path was told about are gone too: acted on at eligibleAt, or by this sweep.
    await waitFor('event-path pods gone', async () => !(await exists(core(), ns.name, 'event-kyverno')) && !(await exists(core(), ns.name, 'event-janitor')));
    expect(await exists(core(), ns.name, 'janitor-ttl')).toBeDefined();

    // The unreadable value is still there, and the strategy says what is wrong with it as stored.
    const unreadable = await exists(core(), ns.name, 'unreadable');
    expect(unreadable?.metadata?.deletionTimestamp).toBeUndefined();
    expect(expiryOf(unreadable as unknown as Pod, new Set(['kyverno', 'janitor']))).toEqual({
      kind: 'malformed',
      reason: 'label cleanup.kyverno.io/ttl: "soon" is neither a duration (5m, 4h, 1d) nor a time (2023-10-04T003000Z, 2023-10-04)',
    });
  });

  it('never touches a pod in a protected namespace, however long expired', async () => {
    const protecting = { PROTECTED_NAMESPACES: `kube-system,${guarded.name}` };
    const res = await send(serve(sweep, await runtimeFor(policy([ns.name, guarded.name]), protecting)), pingRequest());
    expect(res.status).toBe(200);
    expect(res.body.kept).toContainEqual({ namespace: guarded.name, name: 'protected', strategy: 'PodTTL', reason: `namespace ${guarded.name} is protected` });
    const pod = await core().readNamespacedPod({ namespace: guarded.name, name: 'protected' });
    expect(pod.metadata?.deletionTimestamp).toBeUndefined();
    const event = serve(podTerminated, await runtimeFor(policy([ns.name, guarded.name]), protecting));
    expect((await send(event, knativeRequest('binary', 'update', pod))).body).toMatchObject({
      outcome: 'kept',
      kept: [{ reason: `namespace ${guarded.name} is protected` }],
    });
    expect(await exists(core(), guarded.name, 'protected')).toBeDefined();
  });
});
