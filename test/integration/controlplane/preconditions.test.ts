// A stale event must never delete a newer pod that reuses the name: delete carries
// preconditions.uid and the API server compares it with the stored object.
import { CoreV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { pod, statusOf } from './fixtures.js';

const ns = testNamespace('precond');
const core = sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
const uids: Record<'old' | 'current', string> = { old: '', current: '' };

beforeAll(async () => {
  const first = await core.createNamespacedPod({ namespace: ns.name, body: pod('reused') });
  uids.old = first.metadata?.uid ?? '';
  await core.deleteNamespacedPod({ name: 'reused', namespace: ns.name, gracePeriodSeconds: 0 });
  await waitFor('the first pod to be gone', async () => (await statusOf(core.readNamespacedPod({ name: 'reused', namespace: ns.name }))) === 404);
  const second = await core.createNamespacedPod({ namespace: ns.name, body: pod('reused') });
  uids.current = second.metadata?.uid ?? '';
});

describe('deleting a pod recreated under the same name', () => {
  // Order matters: the refused delete must leave the pod in place for the second case.
  for (const row of [
    { uid: 'old', status: 409, remains: true, sentence: 'is refused with 409 when preconditions.uid names the old pod' },
    { uid: 'current', status: 200, remains: false, sentence: 'goes through when preconditions.uid names the current pod' },
  ] as const) {
    it(row.sentence, async () => {
      const { uid, status, remains } = row;
      expect(uids.old).not.toBe(uids.current);
      const body = { preconditions: { uid: uids[uid] } };
      expect(await statusOf(core.deleteNamespacedPod({ name: 'reused', namespace: ns.name, body }))).toBe(status);
      const read = await core.readNamespacedPod({ name: 'reused', namespace: ns.name }).catch(() => undefined);
      const stillThere = read !== undefined && read.metadata?.deletionTimestamp === undefined;
      expect(stillThere).toBe(remains);
    });
  }
});
