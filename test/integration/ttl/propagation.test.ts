// How a ttl rule's delete propagates, on the real control plane (its garbage collector and
// Deployment controller): by default Background, so an expired Deployment's ReplicaSet goes
// with it; an object's own `cleanup.kyverno.io/propagation-policy: Orphan` wins, as in Kyverno,
// and its ReplicaSet stays, no longer owned.
import { AppsV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { runObjectsPass } from '../../../shared/objects/index.js';
import { sharedCluster, waitFor } from '../../harness/index.js';
import { objectsSuite, type TestHandle } from '../objects/handle.js';

const { ns, handle } = objectsSuite('ttl-propagation');
const apps = () => sharedCluster().kubeConfig().makeApiClient(AppsV1Api);
let h: TestHandle;

const replicaSetsOf = async (app: string) => (await apps().listNamespacedReplicaSet({ namespace: ns.name, labelSelector: `app=${app}` })).items;

async function deployment(name: string, annotations: Record<string, string>) {
  const labels = { app: name };
  await apps().createNamespacedDeployment({
    namespace: ns.name,
    body: {
      metadata: { name, labels: { 'cleanup.kyverno.io/ttl': '2020-01-01' }, annotations },
      spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'pause' }] } } },
    },
  });
  await waitFor(`${name}'s ReplicaSet`, async () => ((await replicaSetsOf(name)).length === 1 ? true : undefined));
}

beforeAll(async () => {
  h = handle({
    policy: () => ({
      kubeTidy: {
        ttl: [{ name: 'deployments', mode: 'delete', kinds: [{ group: 'apps', version: 'v1', kind: 'Deployment' }], namespaces: { include: [ns.name] } }],
      },
    }),
  });
  await deployment('background', {});
  await deployment('orphan', { 'cleanup.kyverno.io/propagation-policy': 'Orphan' });
}, 120_000);

describe('a ttl rule’s delete', () => {
  it('takes the ReplicaSet with it by default (Background), and leaves it when the object says Orphan', async () => {
    const s = await runObjectsPass(h.handle, { origin: 'sweep', dryRun: false });
    expect(s.results.map((r) => `${r.decision.name}: ${r.outcome} (${r.decision.propagationPolicy})`).sort()).toEqual([
      'background: deleted (Background)',
      'orphan: deleted (Orphan)',
    ]);
    await waitFor('the Background Deployment’s ReplicaSet collected', async () => ((await replicaSetsOf('background')).length === 0 ? true : undefined));
    await waitFor('the Orphan Deployment’s ReplicaSet no longer owned', async () => {
      const [rs] = await replicaSetsOf('orphan');
      return rs && !rs.metadata?.ownerReferences?.length ? true : undefined;
    });
  }, 120_000);
});
