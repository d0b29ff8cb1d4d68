// deletePod against the real API server: the uid precondition protects a pod recreated
// under the same name, a repeat answers gone, and dryRun=All persists nothing. Every row runs
// through both ways a DELETE is sent: client-node's CoreV1Api and the direct request the writer
// uses (kube/direct.ts, issue 35): the same request must get the same answers.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { deletePod, KubeRequestError, kubeClients, type DeleteOutcome, type PodDeleter } from '../../../shared/kube/index.js';
import { liveUid, makePod, recreate, waitGone, type Made } from './fixtures.js';

const ns = testNamespace('kube-delete');
const kc = sharedCluster().kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const clients = kubeClients(kc);
afterAll(() => clients.close());
const deleters: [string, PodDeleter][] = [
  ['client-node', core],
  ['direct', clients.podWrites],
];

interface Case {
  sentence: string;
  /** Returns the uid the delete will name, and the pod expected to remain (if any). */
  arrange: (name: string) => Promise<{ target: Made & { resourceVersion?: string }; remains?: Made }>;
  dryRun?: boolean;
  outcome: DeleteOutcome;
}

const cases: Case[] = [
  {
    sentence: 'a delete naming the current uid deletes the pod',
    arrange: async (name) => ({ target: await makePod(core, ns.name, name, { exitCode: 0, phase: 'Succeeded' }) }),
    outcome: 'deleted',
  },
  {
    sentence: 'a delete naming the uid of a pod since recreated under the same name is stale and leaves the new pod',
    arrange: async (name) => {
      const old = await makePod(core, ns.name, name);
      return { target: old, remains: await recreate(core, ns.name, old) };
    },
    outcome: 'stale',
  },
  {
    sentence: 'a second delete of a pod already gone answers gone',
    arrange: async (name) => {
      const made = await makePod(core, ns.name, name, { exitCode: 1, phase: 'Failed' });
      expect((await deletePod(core, { namespace: ns.name, ...made })).outcome).toBe('deleted');
      await waitGone(core, ns.name, made);
      return { target: made };
    },
    outcome: 'gone',
  },
  {
    sentence: 'a delete tied to a resourceVersion the pod has moved past is stale and leaves it',
    arrange: async (name) => {
      const made = await makePod(core, ns.name, name, { exitCode: 1, phase: 'Failed' });
      const seen = (await core.readNamespacedPod({ namespace: ns.name, name })).metadata!.resourceVersion!;
      await core.patchNamespacedPod({ namespace: ns.name, name, body: [{ op: 'add', path: '/metadata/labels', value: { touched: 'yes' } }] });
      return { target: { ...made, resourceVersion: seen }, remains: made };
    },
    outcome: 'stale',
  },
  {
    sentence: 'a dry-run delete answers deleted and leaves the pod in place',
    arrange: async (name) => {
      const made = await makePod(core, ns.name, name, { exitCode: 0, phase: 'Succeeded' });
      return { target: made, remains: made };
    },
    dryRun: true,
    outcome: 'deleted',
  },
];

describe.each(deleters)('deletePod through %s', (via, deleter) => {
  for (const row of cases.map((c, i) => ({ ...c, name: `del-${via}-${i}` })))
    it(row.sentence, async () => {
      const { name, arrange, dryRun, outcome } = row;
      const { target, remains } = await arrange(name);
      const result = await deletePod(deleter, { namespace: ns.name, ...target }, { dryRun, gracePeriodSeconds: 0 });

      expect(result.outcome).toBe(outcome);
      expect(result.dryRun).toBe(dryRun ?? false);
      if (remains) {
        expect(await liveUid(core, ns.name, name)).toBe(remains.uid);
      } else {
        await waitGone(core, ns.name, target);
      }
    });

  it('a delete the API server forbids throws what a retry will not fix (403), and the pod stays', async () => {
    const made = await makePod(core, ns.name, `del-${via}-forbidden`, { exitCode: 1, phase: 'Failed' });
    const nobody = new KubeConfig();
    nobody.loadFromString(kc.exportConfig());
    // An identity the API server knows and has granted nothing: impersonated by the admin.
    (nobody.getCurrentUser() as { impersonateUser?: string }).impersonateUser = 'system:serviceaccount:default:nobody';
    const as = via === 'direct' ? kubeClients(nobody) : undefined;
    const forbidden: PodDeleter = as ? as.podWrites : nobody.makeApiClient(CoreV1Api);
    const error = await deletePod(forbidden, { namespace: ns.name, ...made }).catch((e: unknown) => e);
    as?.close();
    expect(error).toBeInstanceOf(KubeRequestError);
    expect((error as KubeRequestError).failure).toMatchObject({ kind: 'forbidden', status: 403 });
    expect(await liveUid(core, ns.name, made.name)).toBe(made.uid);
  });
});
