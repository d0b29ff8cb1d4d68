// Cleanup beyond pods, read from the real control plane: the PVC protection controller of
// kube-controller-manager v1.37.2 writes KEP-5541's Unused condition (gate
// PersistentVolumeClaimUnusedSinceTime, on by default; only on a Bound claim:
// pvc_protection_controller.go, so each claim here is bound by the PV controller to a volume
// made for it), the Job controller Complete/Failed, and
// the core decides from what readObjects read. A Pending pod naming a claim keeps it twice over:
// the API server's condition says in use, and the pod is in the context.
import { BatchV1Api, CoreV1Api, type V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { kubeClients } from '../../../shared/kube/clients.js';
import { decideObjects } from '../../../shared/objects/core/decide.js';
import { readObjects } from '../../../shared/objects/io/read.js';
import { ObjectRuleSchema } from '../../../shared/policy/objects-schema.js';
import { EXIT_CODE_ANNOTATION, sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { Volumes } from './fixtures.js';

const ns = testNamespace('objects-read');
const kc = () => sharedCluster().kubeConfig();
const claimBody = (name: string): V1PersistentVolumeClaim => ({
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'manual', volumeName: volumeFor(name) },
});
const volumeFor = (claim: string) => `${ns.name}-${claim}`;
const volumes = new Volumes(() => kc().makeApiClient(CoreV1Api));

/** A volume pre-bound to `claim` (claimRef), so the PV controller binds the two and nothing else takes it. */
const volume = (claim: string, reclaim: 'Delete' | 'Retain') => volumes.forClaim(ns.name, claim, reclaim, volumeFor(claim));
afterAll(() => volumes.removeAll());

async function conditionOf(name: string) {
  const c = await kc().makeApiClient(CoreV1Api).readNamespacedPersistentVolumeClaim({ namespace: ns.name, name });
  return c.status?.conditions?.find((x) => x.type === 'Unused');
}

describe('what the controllers write, as kube-tidy reads it', () => {
  it("reads a claim's Unused condition from kube-controller-manager, and keeps a claim a Pending pod names", async () => {
    const core = kc().makeApiClient(CoreV1Api);
    await volume('idle', 'Delete');
    await volume('kept', 'Retain');
    await volume('wanted', 'Delete');
    await core.createNamespacedPersistentVolumeClaim({ namespace: ns.name, body: claimBody('idle') });
    await core.createNamespacedPersistentVolumeClaim({ namespace: ns.name, body: claimBody('kept') });
    await core.createNamespacedPersistentVolumeClaim({ namespace: ns.name, body: claimBody('wanted') });
    // A pod that stays Pending (no node has the volume: the scheduler cannot place it) names "wanted".
    await core.createNamespacedPod({
      namespace: ns.name,
      body: {
        metadata: { name: 'waiter' },
        spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'wanted' } }] },
      },
    });
    const idle = await waitFor('Unused on idle', async () => ((await conditionOf('idle'))?.status === 'True' ? conditionOf('idle') : undefined), {
      timeoutMs: 60_000,
    });
    expect(idle).toMatchObject({ status: 'True', reason: 'NoPodsUsingPVC' });
    const wanted = await waitFor('Unused on wanted', () => conditionOf('wanted'), { timeoutMs: 60_000 });
    expect(wanted).toMatchObject({ status: 'False', reason: 'PodUsingPVC' });

    const clients = kubeClients(kc());
    try {
      await waitFor('Unused on kept', async () => ((await conditionOf('kept'))?.status === 'True' ? true : undefined), { timeoutMs: 60_000 });
      const rule = ObjectRuleSchema.parse({
        name: 'claims',
        kind: 'PersistentVolumeClaim',
        minAge: '0s',
        namespaces: { include: [ns.name] },
        mode: 'delete',
        reclaimPolicy: ['Delete'],
      });
      const { objects, ctx } = await readObjects(clients, [rule]);
      const plan = decideObjects([rule], objects, ctx, Date.now() + 1000);
      expect(plan.decisions.map((d) => d.name)).toEqual(['idle']);
      expect(plan.kept.map((k) => [k.name, k.reason])).toEqual([
        ['kept', `its volume ${volumeFor('kept')} has reclaim policy Retain, which the rule's reclaimPolicy does not accept`],
      ]);
      expect(ctx.podClaims.get(`${ns.name}/wanted`)).toBe(`${ns.name}/waiter`);
    } finally {
      clients.close();
    }
  }, 120_000);

  it('reads a Job the Job controller finished, Failed with its condition time', async () => {
    const batch = kc().makeApiClient(BatchV1Api);
    await batch.createNamespacedJob({
      namespace: ns.name,
      body: {
        metadata: { name: 'fails' },
        spec: {
          backoffLimit: 0,
          template: {
            metadata: { annotations: { [EXIT_CODE_ANNOTATION]: '1' } },
            spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
          },
        },
      },
    });
    await waitFor(
      'Job Failed',
      async () =>
        (await batch.readNamespacedJob({ namespace: ns.name, name: 'fails' })).status?.conditions?.some((c) => c.type === 'Failed' && c.status === 'True')
          ? true
          : undefined,
      {
        timeoutMs: 60_000,
      },
    );
    const clients = kubeClients(kc());
    try {
      const rule = ObjectRuleSchema.parse({ name: 'jobs', kind: 'Job', minAge: '1h', namespaces: { include: [ns.name] } });
      const { objects, ctx } = await readObjects(clients, [rule]);
      const now = Date.now();
      const plan = decideObjects([rule], objects, ctx, now);
      expect(plan.decisions).toEqual([]);
      expect(plan.eligible.map((e) => e.name)).toEqual(['fails']);
      // Due an hour after the condition the Job controller wrote, within the second it is stored to.
      expect(Math.abs(plan.eligible[0]!.at - (now + 3600_000))).toBeLessThan(90_000);
    } finally {
      clients.close();
    }
  }, 120_000);
});
