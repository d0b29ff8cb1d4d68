// objectUpdated on claims, reading the event's namespace only: its claims, the pods and workload
// templates there, and the one volume each claim is bound to (a GET, never every volume of the
// cluster). An Unused claim a rule selects goes; one a Pending pod names is kept, the pod found
// in the namespace's read; neither event LISTs volumes or another namespace's claims.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { objectUpdated } from '../../../functions/object-updated.js';
import { httpMessage, toApiServerSourceEvent, type KubeObject } from '../../../shared/cloudevents/index.js';
import { policyDoc } from '../../fixtures/policy.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { countedRuntime, serveParts } from '../due/setup.js';
import { send } from '../functions/setup.js';

const ns = testNamespace('objects-claims');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
const made: string[] = [];
afterAll(async () => {
  for (const name of made)
    await core()
      .deletePersistentVolume({ name })
      .catch(() => undefined);
});

const policy = (namespace: string) =>
  policyDoc([{ name: 'RemoveFailedPods', args: { namespaces: { include: ['nothing-here'] } } }], {
    top: {
      kubeTidy: {
        objects: [
          { name: 'claims', kind: 'PersistentVolumeClaim', minAge: '0s', mode: 'delete', namespaces: { include: [namespace] }, reclaimPolicy: ['Delete'] },
        ],
      },
    },
  });

/** A claim bound to a volume pre-bound to it, once kube-controller-manager wrote Unused (True, or False while a pod names it). */
async function claim(name: string, unused: 'True' | 'False') {
  const volume = `${ns.name}-${name}`;
  made.push(volume);
  await core().createPersistentVolume({
    body: {
      metadata: { name: volume },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'manual',
        persistentVolumeReclaimPolicy: 'Delete',
        hostPath: { path: `/tmp/${volume}` },
        claimRef: { namespace: ns.name, name },
      },
    },
  });
  await core().createNamespacedPersistentVolumeClaim({
    namespace: ns.name,
    body: {
      metadata: { name },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'manual', volumeName: volume },
    },
  });
  return waitFor(
    `${name} Unused=${unused}`,
    async () => {
      const c = await core().readNamespacedPersistentVolumeClaim({ namespace: ns.name, name });
      return c.status?.conditions?.some((x) => x.type === 'Unused' && x.status === unused) ? c : undefined;
    },
    { timeoutMs: 60_000 },
  );
}

const event = (c: object) =>
  httpMessage(
    toApiServerSourceEvent('update', JSON.parse(JSON.stringify({ ...c, apiVersion: 'v1', kind: 'PersistentVolumeClaim' })) as KubeObject, 'https://api'),
    'binary',
  );

describe('objectUpdated on claims, one namespace read', () => {
  it('deletes an Unused claim a rule selects, and keeps one a Pending pod names; no volume LIST, no cluster-wide claim LIST', async () => {
    const { rt, requests } = await countedRuntime(policy(ns.name), { DRY_RUN: 'false', DUE_NAMESPACE: `${ns.name}-due` });
    const parts = await objectUpdated.setup(rt);
    const agent = serveParts(objectUpdated, parts, rt);
    try {
      const idle = await claim('idle', 'True');
      await claim('held', 'True');
      // A pod no node runs (Pending) names it: the PVC protection controller then writes Unused=False.
      await core().createNamespacedPod({
        namespace: ns.name,
        body: {
          metadata: { name: 'holder' },
          spec: {
            nodeSelector: { nowhere: 'true' },
            containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }],
            volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'held' } }],
          },
        },
      });
      const held = await waitFor(
        'held in use',
        async () => {
          const c = await core().readNamespacedPersistentVolumeClaim({ namespace: ns.name, name: 'held' });
          return c.status?.conditions?.some((x) => x.type === 'Unused' && x.status === 'False') ? c : undefined;
        },
        { timeoutMs: 60_000 },
      );
      const gone = await send(agent, event(idle));
      expect(gone.status, JSON.stringify(gone.body)).toBe(200);
      expect(gone.body).toMatchObject({ outcome: 'deleted' });
      // The event's copy says Unused=True (forged: the stored one says in use): kept all the same.
      const forged = {
        ...held,
        status: { ...held.status, conditions: [{ type: 'Unused', status: 'True', reason: 'NoPodsUsingPVC', lastTransitionTime: '2020-01-01T00:00:00Z' }] },
      };
      const kept = await send(agent, event(forged));
      expect(kept.status).toBe(200);
      expect(kept.body.outcome).not.toBe('deleted');
      expect((await core().readNamespacedPersistentVolumeClaim({ namespace: ns.name, name: 'held' })).metadata?.deletionTimestamp).toBeUndefined();
      // One namespace's reads: no volume LIST, no claims of every namespace.
      expect(requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/persistentvolumes')).toEqual([]);
      expect(requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/persistentvolumeclaims')).toEqual([]);
      expect(requests.some((r) => r.method === 'GET' && r.path === `/api/v1/persistentvolumes/${ns.name}-idle`)).toBe(true);
    } finally {
      parts.stop();
    }
  }, 180_000);
});
