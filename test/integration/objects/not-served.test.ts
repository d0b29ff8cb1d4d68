// A Workload rule on a cluster that does not serve Kueue's Workloads (a control plane of its
// own, no Kueue CRDs: the shared one gets them from other tests): the pass says the kind is not
// served and goes on with its other rules. The pager wraps the list's 404 (kube/errors.ts
// KubeError), so this failed the whole pass when read.ts classified it as a raw client error.
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeClients, type KubeClients } from '../../../shared/kube/clients.js';
import { runObjectsPass } from '../../../shared/objects/index.js';
import { startCluster, waitFor, type Cluster } from '../../harness/index.js';
import { finishedJob, liveJob } from './fixtures.js';
import { testHandle, type TestHandle } from './handle.js';

const NS = 'batch-work';
let cluster: Cluster;
let clients: KubeClients;
let batch: BatchV1Api;
let h: TestHandle | undefined;

beforeAll(async () => {
  cluster = await startCluster({ name: 'objects-no-kueue', kwokNodes: 1 });
  const kc = cluster.kubeConfig();
  clients = kubeClients(kc);
  batch = kc.makeApiClient(BatchV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NS } } });
  await waitFor('default ServiceAccount', () => core.readNamespacedServiceAccount({ namespace: NS, name: 'default' }).then(() => true));
}, 120_000);

afterAll(async () => {
  h?.close();
  clients?.close();
  await cluster?.stop();
});

describe('a kind the cluster does not serve', () => {
  it('a Workload rule without Kueue: Workload reported not served, the Job rule still acts', async () => {
    await finishedJob(batch, NS, 'done');
    const only = { namespaces: { include: [NS] } };
    h = testHandle({
      clients,
      ledgerNamespace: NS,
      policy: () => ({
        kubeTidy: {
          objects: [
            { name: 'workloads', kind: 'Workload', minAge: '0s', mode: 'delete', ...only },
            { name: 'jobs', kind: 'Job', minAge: '0s', mode: 'delete', ...only },
          ],
        },
      }),
    });
    const summary = await runObjectsPass(h.handle, { origin: 'sweep', dryRun: false, namespaces: [NS] });
    expect(summary.notServed).toEqual(['Workload']);
    expect(summary.results.map((r) => [r.decision.name, r.outcome])).toEqual([['done', 'deleted']]);
    expect(await liveJob(batch, NS, 'done')).toBeUndefined();
  }, 120_000);
});
