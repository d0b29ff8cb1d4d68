// The Kueue and Knative CRDs from their Go modules (infra/local/crds/sources.ts) install into the real API server and
// accept the objects kube-tidy reads: MultiKueue's cluster list and Knative's event sources.
import { CustomObjectsApi } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { installCrds, sharedCluster, upstreamCrdsDir, testNamespace } from '../../harness/index.js';

const ns = testNamespace('crds');
const cluster = sharedCluster();
const custom = cluster.kubeConfig().makeApiClient(CustomObjectsApi);
const suffix = Math.random().toString(16).slice(2, 8);

beforeAll(async () => {
  await installCrds(cluster, upstreamCrdsDir('kueue'));
  await installCrds(cluster, upstreamCrdsDir('knative'));
}, 180_000);

const sink = { uri: 'http://kube-tidy.example.invalid/' };
const cases = [
  {
    kind: 'MultiKueueCluster',
    group: 'kueue.x-k8s.io',
    version: 'v1beta2',
    plural: 'multikueueclusters',
    namespaced: false,
    spec: { clusterSource: { kubeConfig: { location: 'worker-1-kubeconfig', locationType: 'Secret' } } },
  },
  {
    kind: 'MultiKueueConfig',
    group: 'kueue.x-k8s.io',
    version: 'v1beta2',
    plural: 'multikueueconfigs',
    namespaced: false,
    spec: { clusters: [`worker-1-${suffix}`] },
  },
  {
    kind: 'ApiServerSource',
    group: 'sources.knative.dev',
    version: 'v1',
    plural: 'apiserversources',
    namespaced: true,
    spec: { mode: 'Resource', resources: [{ apiVersion: 'v1', kind: 'Pod' }], serviceAccountName: 'default', sink },
  },
  {
    kind: 'PingSource',
    group: 'sources.knative.dev',
    version: 'v1',
    plural: 'pingsources',
    namespaced: true,
    spec: { schedule: '*/5 * * * *', contentType: 'application/json', data: '{"sweep":true}', sink },
  },
];

describe('an object of an installed CRD', () => {
  for (const c of cases) {
    it(`of kind ${c.kind} (${c.group}/${c.version}) can be created and read back`, async () => {
      const name = `worker-1-${suffix}`;
      const body = { apiVersion: `${c.group}/${c.version}`, kind: c.kind, metadata: { name }, spec: c.spec };
      const where = { group: c.group, version: c.version, plural: c.plural };
      if (c.namespaced) {
        await custom.createNamespacedCustomObject({ ...where, namespace: ns.name, body });
      } else {
        await custom.createClusterCustomObject({ ...where, body });
      }
      const read = (
        c.namespaced ? await custom.getNamespacedCustomObject({ ...where, namespace: ns.name, name }) : await custom.getClusterCustomObject({ ...where, name })
      ) as { spec?: unknown };
      expect(read.spec).toMatchObject(c.spec);
      if (!c.namespaced) await custom.deleteClusterCustomObject({ ...where, name });
    });
  }
});
