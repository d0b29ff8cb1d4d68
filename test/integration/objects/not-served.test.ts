// A Workload rule on a cluster that does not serve Kueue's Workloads (no Kueue CRDs, as the
// shared test cluster): the pass says the kind is not served and goes on with its other rules.
// The pager wraps the list's 404 (kube/errors.ts KubeError), so this failed the whole pass when
// read.ts classified it as a raw client error (`unknown`).
import { ApiextensionsV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { runObjectsPass } from '../../../shared/objects/index.js';
import { sharedCluster } from '../../harness/index.js';
import { finishedJob, liveJob } from './fixtures.js';
import { objectsSuite } from './handle.js';

const { ns, batch, handle } = objectsSuite('objects-not-served');

describe('a kind the cluster does not serve', () => {
  it('a Workload rule without Kueue: Workload reported not served, the Job rule still acts', async () => {
    const crds = await sharedCluster().kubeConfig().makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
    expect(
      crds.items.map((c) => c.metadata?.name),
      'the shared cluster serves no Kueue Workloads',
    ).not.toContain('workloads.kueue.x-k8s.io');
    await finishedJob(batch(), ns.name, 'done');
    const only = { namespaces: { include: [ns.name] } };
    const h = handle({
      policy: () => ({
        kubeTidy: {
          objects: [
            { name: 'workloads', kind: 'Workload', minAge: '0s', mode: 'delete', ...only },
            { name: 'jobs', kind: 'Job', minAge: '0s', mode: 'delete', ...only },
          ],
        },
      }),
    });
    const summary = await runObjectsPass(h.handle, { origin: 'sweep', dryRun: false, namespaces: [ns.name] });
    expect(summary.notServed).toEqual(['Workload']);
    expect(summary.results.map((r) => [r.decision.name, r.outcome])).toEqual([['done', 'deleted']]);
    expect(await liveJob(batch(), ns.name, 'done')).toBeUndefined();
  }, 120_000);
});
