import { describe, expect, it } from 'vitest';
import { buildOracle } from '../../infra/local/descheduler/oracle-build.js';
import { decide } from '../../shared/selection/decide.js';
import { NOW, node, pod, type PodBuilder } from '../fixtures/pods.js';
import { policyDoc, policyOf, type PluginSpec } from '../fixtures/policy.js';
import { runOracle } from './oracle.js';
import { conformance, report } from './run.js';

// kube-tidy's pure core against the real descheduler v0.36.0 (infra/local/descheduler/oracle).
// The fixed seeds run in CI; `npm run conformance` runs 20,000 more and prints the figures.

const CI_SEEDS = Array.from({ length: 4000 }, (_, i) => i + 1);

/** What the real descheduler evicts, by name, from a hand-written case on two Ready nodes. */
async function oracleEvicts(plugins: PluginSpec[], pods: PodBuilder[]): Promise<string[]> {
  const [result] = await runOracle(buildOracle(), [
    {
      id: 'hand',
      policy: JSON.stringify(policyDoc(plugins, { evictor: {} })),
      now: new Date(NOW).toISOString().replace('.000Z', 'Z'),
      pods: pods.map((p) => p.build()),
      nodes: [node('node-1'), node('node-2')],
      cluster: { namespaces: [], priorityClasses: [], pdbs: [], pvcs: [] },
    },
  ]);
  expect(result?.error ?? result?.policyError).toBeUndefined();
  return result!.evicted.map((e) => e.name);
}

describe('the oracle runs the real descheduler at the case instant, to the second', () => {
  it.each([
    {
      name: 'PodLifeTime selects age > maxPodLifeTimeSeconds: 61 s, not 60 s',
      plugins: [{ name: 'PodLifeTime', args: { maxPodLifeTimeSeconds: 60 } }],
      pods: () => [pod('at-60').age(60), pod('at-61').age(61)],
      want: ['at-61'],
    },
    {
      name: 'RemoveFailedPods selects age >= minPodLifetimeSeconds: 60 s, not 59 s',
      plugins: [{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 60 } }],
      pods: () => [pod('at-59').age(59).failed(), pod('at-60').age(60).failed()],
      want: ['at-60'],
    },
    {
      name: 'RemoveFailedPods with 0 selects a pod that failed in its first second',
      plugins: [{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 0 } }],
      pods: () => [pod('at-0').age(0).failed()],
      want: ['at-0'],
    },
    {
      name: 'a condition threshold counts whole seconds since the transition',
      plugins: [{ name: 'PodLifeTime', args: { conditions: [{ type: 'Ready', status: 'False', minTimeSinceLastTransitionSeconds: 300 }] } }],
      pods: () => [pod('for-299').condition('Ready', 'False', { secondsAgo: 299 }), pod('for-300').condition('Ready', 'False', { secondsAgo: 300 })],
      want: ['for-300'],
    },
  ])('$name, and kube-tidy agrees', async ({ plugins, pods, want }) => {
    expect(await oracleEvicts(plugins, pods())).toEqual(want);
    const plan = decide(policyOf(plugins, { evictor: {} }), { pods: pods().map((p) => p.build()), nodes: [node('node-1'), node('node-2')] }, NOW);
    expect(plan.decisions.map((d) => d.name)).toEqual(want);
  });
});

describe('kube-tidy against the real descheduler v0.36.0', () => {
  it(`agrees on all ${CI_SEEDS.length} generated cases outside the documented differences`, async () => {
    const s = await conformance(CI_SEEDS);
    console.log(report(s));
    expect(s.failures).toEqual([]);
    // Not vacuous: the descheduler evicts in a good share of the cases (the default protections
    // keep many generated pods), and most plans match with no rule at all.
    expect(s.nonEmpty / s.cases).toBeGreaterThan(0.25);
    expect(s.podsEvicted).toBeGreaterThan(s.cases / 2);
    expect(s.exact / s.cases).toBeGreaterThan(0.85);
  });
});
