// evictPod against the real API server: a PodDisruptionBudget refusal is reported as
// blocked (and the pod stays), a terminal pod is evicted whatever the budget says, and the
// uid precondition and dryRun hold on the eviction path as on delete. Every row runs through
// both ways an eviction is sent: client-node's CoreV1Api and the direct request the writer uses
// (kube/direct-pods.ts): the same request must get the same answers.
import { CoreV1Api, PolicyV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { evictPod, kubeClients, type EvictOutcome, type PodEvictor } from '../../../shared/kube/index.js';
import { liveUid, makePod, recreate, waitGone, type Made } from './fixtures.js';

const ns = testNamespace('kube-evict');
const kc = sharedCluster().kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const policy = kc.makeApiClient(PolicyV1Api);
const guarded = { budget: 'none-may-go' };
const clients = kubeClients(kc);
afterAll(() => clients.close());
const evictors: [string, PodEvictor][] = [
  ['client-node', core],
  ['direct', clients.podWrites],
];

beforeAll(async () => {
  await policy.createNamespacedPodDisruptionBudget({
    namespace: ns.name,
    body: { metadata: { name: 'guard' }, spec: { maxUnavailable: 0, selector: { matchLabels: guarded } } },
  });
  // Until the disruption controller has looked at the budget every eviction is refused
  // anyway; wait for its verdict so a 429 below is the budget's.
  await waitFor('the disruption controller to observe the budget', async () => {
    const pdb = await policy.readNamespacedPodDisruptionBudget({ name: 'guard', namespace: ns.name });
    return pdb.status?.observedGeneration === pdb.metadata?.generation && pdb.status?.disruptionsAllowed === 0;
  });
});

interface Case {
  sentence: string;
  arrange: (name: string) => Promise<{ target: Made; remains?: Made }>;
  dryRun?: boolean;
  outcome: EvictOutcome;
  disruptionBudget?: boolean;
}

const running = (name: string, labels = {}) => makePod(core, ns.name, name, { labels });

const cases: Case[] = [
  {
    sentence: 'a Running pod under a budget allowing no disruption is blocked and stays',
    arrange: async (name) => {
      const made = await running(name, guarded);
      return { target: made, remains: made };
    },
    outcome: 'blocked',
    disruptionBudget: true,
  },
  {
    sentence: 'a Running pod without a budget is evicted',
    arrange: async (name) => ({ target: await running(name) }),
    outcome: 'evicted',
  },
  {
    sentence: 'a Succeeded pod under the same budget is evicted: the API server skips budgets for terminal pods',
    arrange: async (name) => ({ target: await makePod(core, ns.name, name, { labels: guarded, exitCode: 0, phase: 'Succeeded' }) }),
    outcome: 'evicted',
  },
  {
    sentence: 'an eviction naming the uid of a pod since recreated is stale and leaves the new pod',
    arrange: async (name) => {
      const old = await running(name);
      return { target: old, remains: await recreate(core, ns.name, old) };
    },
    outcome: 'stale',
  },
  {
    sentence: 'an eviction of a pod already gone answers gone',
    arrange: async (name) => {
      const made = await running(name);
      await core.deleteNamespacedPod({ name, namespace: ns.name, gracePeriodSeconds: 0 });
      await waitGone(core, ns.name, made);
      return { target: made };
    },
    outcome: 'gone',
  },
  {
    sentence: 'a dry-run eviction answers evicted and leaves the pod running',
    arrange: async (name) => {
      const made = await running(name);
      return { target: made, remains: made };
    },
    dryRun: true,
    outcome: 'evicted',
  },
];

describe.each(evictors)('evictPod through %s', (via, evictor) => {
  for (const row of cases.map((c, i) => ({ ...c, name: `evict-${via}-${i}` })))
    it(row.sentence, async () => {
      const { name, arrange, dryRun, outcome, disruptionBudget } = row;
      const { target, remains } = await arrange(name);
      const result = await evictPod(evictor, { namespace: ns.name, ...target }, { dryRun });

      expect(result.outcome).toBe(outcome);
      if (outcome === 'blocked') {
        expect(result.disruptionBudget).toBe(disruptionBudget);
        // The cause names the budget, so a person reading the event knows which one.
        expect(result.message).toContain('disruption budget guard');
      }
      if (remains) {
        expect(await liveUid(core, ns.name, name)).toBe(remains.uid);
      } else {
        await waitGone(core, ns.name, target);
      }
    });
});
