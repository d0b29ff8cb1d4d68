import { CoreV1Api, PolicyV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { policyDoc } from '../../fixtures/policy.js';
import { exists, knativeRequest, runPod, runtimeFor, send, serve } from './setup.js';

// A policy that reads more than the pod (PodsWithoutPDB needs the budgets): the function
// fetches that context from the real cluster before deciding.

const ns = testNamespace('fn-context');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
let agent: ReturnType<typeof serve>;

beforeAll(async () => {
  const policy = policyDoc([{ name: 'PodLifeTime', args: { states: ['Failed'], exitCodes: [3] } }], {
    evictor: { podProtections: { defaultDisabled: ['FailedBarePods'], extraEnabled: ['PodsWithoutPDB'] } },
  });
  agent = serve(podTerminated, await runtimeFor(policy));
  await sharedCluster()
    .kubeConfig()
    .makeApiClient(PolicyV1Api)
    .createNamespacedPodDisruptionBudget({
      namespace: ns.name,
      body: { metadata: { name: 'covered' }, spec: { maxUnavailable: 1, selector: { matchLabels: { budget: 'yes' } } } },
    });
});

describe('podTerminated with a policy that needs PodDisruptionBudgets', () => {
  it('keeps a pod no budget covers, and deletes one a budget covers', async () => {
    const bare = await runPod(core(), ns.name, 'uncovered', { exitCode: 3 });
    const kept = await send(agent, knativeRequest('binary', 'update', bare));
    expect(kept.body).toMatchObject({ outcome: 'kept', why: 'PodLifeTime: pod has no PodDisruptionBudget (PodsWithoutPDB protection)' });
    expect(await exists(core(), ns.name, 'uncovered')).toBeDefined();

    const covered = await runPod(core(), ns.name, 'covered', { exitCode: 3, labels: { budget: 'yes' } });
    const deleted = await send(agent, knativeRequest('binary', 'update', covered));
    expect(deleted.body.outcome).toBe('deleted');
  });
});
