// The MultiKueue leftover-pods bug, reproduced against the real garbage collector: how a
// Job is deleted decides whether its pods go with it.
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { job, podsOf, statusOf } from './fixtures.js';

const ns = testNamespace('gc');
const kc = sharedCluster().kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const batch = kc.makeApiClient(BatchV1Api);

describe('deleting a Job', () => {
  for (const row of [
    { policy: 'Background', podsRemain: false, sentence: 'with propagationPolicy Background removes its pods' },
    { policy: 'Orphan', podsRemain: true, sentence: 'with propagationPolicy Orphan leaves its pods running' },
  ]) {
    it(row.sentence, async () => {
      const { policy, podsRemain } = row;
      const name = `job-${policy.toLowerCase()}`;
      const selector = `job-name=${name}`;
      await batch.createNamespacedJob({ namespace: ns.name, body: job(name, { parallelism: 2 }) });
      await waitFor('two Running pods of the Job', async () => {
        const pods = await podsOf(core, ns.name, selector);
        return pods.length === 2 && pods.every((p) => p.status?.phase === 'Running');
      });

      await batch.deleteNamespacedJob({ name, namespace: ns.name, propagationPolicy: policy });
      // With Orphan the Job only disappears after the garbage collector has orphaned its pods.
      await waitFor('the Job to be gone', async () => (await statusOf(batch.readNamespacedJob({ name, namespace: ns.name }))) === 404);

      if (podsRemain) {
        const pods = await podsOf(core, ns.name, selector);
        expect(pods.map((p) => p.status?.phase)).toEqual(['Running', 'Running']);
        expect(pods.flatMap((p) => p.metadata?.ownerReferences ?? [])).toEqual([]);
      } else {
        await waitFor('the garbage collector to remove the pods', async () => (await podsOf(core, ns.name, selector)).length === 0);
      }
    });
  }
});
