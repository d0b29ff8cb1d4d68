// The Eviction API honours PodDisruptionBudgets for running pods only: the API server skips
// the budget for terminal pods, so evicting a Succeeded pod is a plain delete.
import { CoreV1Api, PolicyV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { phaseOf, pod, statusOf } from './fixtures.js';

const ns = testNamespace('evict');
const kc = sharedCluster().kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const policy = kc.makeApiClient(PolicyV1Api);
const labels = { app: 'guarded' };

beforeAll(async () => {
  await core.createNamespacedPod({ namespace: ns.name, body: pod('running', labels) });
  await core.createNamespacedPod({ namespace: ns.name, body: pod('succeeded', labels, { exitCode: 0 }) });
  await waitFor('one Running and one Succeeded pod', async () => {
    const phases = await Promise.all(['running', 'succeeded'].map((n) => phaseOf(core, ns.name, n)));
    return phases[0] === 'Running' && phases[1] === 'Succeeded';
  });
  await policy.createNamespacedPodDisruptionBudget({
    namespace: ns.name,
    body: { metadata: { name: 'guard' }, spec: { minAvailable: 1, selector: { matchLabels: labels } } },
  });
  // Until the disruption controller has computed the status, every eviction is refused;
  // wait for it so a 429 below is the budget's verdict, not a missing status.
  await waitFor('the disruption controller to allow no disruption', async () => {
    const pdb = await policy.readNamespacedPodDisruptionBudget({ name: 'guard', namespace: ns.name });
    const s = pdb.status;
    return s?.observedGeneration === pdb.metadata?.generation && s?.currentHealthy === 1 && s?.disruptionsAllowed === 0;
  });
});

describe('evicting a pod under a PodDisruptionBudget that allows no disruption', () => {
  for (const row of [
    { name: 'running', status: 429, gone: false, sentence: 'is refused with 429 when the pod is Running' },
    { name: 'succeeded', status: 200, gone: true, sentence: 'succeeds all the same when the pod has Succeeded' },
  ]) {
    it(row.sentence, async () => {
      const { name, status, gone } = row;
      const body = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: ns.name } };
      expect(await statusOf(core.createNamespacedPodEviction({ name, namespace: ns.name, body }))).toBe(status);
      if (gone) {
        await waitFor(`pod ${name} to be gone`, async () => (await statusOf(core.readNamespacedPod({ name, namespace: ns.name }))) === 404);
      } else {
        expect(await phaseOf(core, ns.name, name)).toBe('Running');
      }
    });
  }
});
