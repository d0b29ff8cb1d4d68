// deletePod against the real API server: the uid precondition protects a pod recreated
// under the same name, a repeat answers gone, and dryRun=All persists nothing.
import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { deletePod, type DeleteOutcome } from '../../../shared/kube/index.js';
import { liveUid, makePod, recreate, waitGone, type Made } from './fixtures.js';

const ns = testNamespace('kube-delete');
const core = sharedCluster().kubeConfig().makeApiClient(CoreV1Api);

interface Case {
  sentence: string;
  /** Returns the uid the delete will name, and the pod expected to remain (if any). */
  arrange: (name: string) => Promise<{ target: Made; remains?: Made }>;
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
    sentence: 'a dry-run delete answers deleted and leaves the pod in place',
    arrange: async (name) => {
      const made = await makePod(core, ns.name, name, { exitCode: 0, phase: 'Succeeded' });
      return { target: made, remains: made };
    },
    dryRun: true,
    outcome: 'deleted',
  },
];

describe('deletePod', () => {
  for (const row of cases.map((c, i) => ({ ...c, name: `del-${i}` })))
    it(row.sentence, async () => {
      const { name, arrange, dryRun, outcome } = row;
      const { target, remains } = await arrange(name);
      const result = await deletePod(core, { namespace: ns.name, ...target }, { dryRun, gracePeriodSeconds: 0 });

      expect(result.outcome).toBe(outcome);
      expect(result.dryRun).toBe(dryRun ?? false);
      if (remains) {
        expect(await liveUid(core, ns.name, name)).toBe(remains.uid);
      } else {
        await waitGone(core, ns.name, target);
      }
    });
});
