import { describe, expect, it } from 'vitest';
import { phaseFieldSelector, selectsOnlyFinished } from './field-selector.js';
import { decide } from './decide.js';
import { policyOf } from '../../test/fixtures/policy.js';
import { NOW, pod } from '../../test/fixtures/pods.js';

describe('the phase field selector for sweeps', () => {
  it.each([
    { name: 'RemoveFailedPods reads only Failed pods', plugins: [{ name: 'RemoveFailedPods' }], want: 'status.phase=Failed' },
    {
      name: 'PodLifeTime over finished pods skips the live ones',
      plugins: [{ name: 'PodLifeTime', args: { states: ['Succeeded', 'Failed'] } }],
      want: 'status.phase!=Pending,status.phase!=Running,status.phase!=Unknown',
    },
    {
      name: 'states that are reasons can occur in any phase',
      plugins: [{ name: 'PodLifeTime', args: { states: ['Succeeded', 'OOMKilled'] } }],
      want: undefined,
    },
    { name: 'an age-only PodLifeTime reads every phase', plugins: [{ name: 'PodLifeTime', args: { maxPodLifeTimeSeconds: 60 } }], want: undefined },
    {
      name: 'the union over strategies is read',
      plugins: [{ name: 'RemoveFailedPods' }, { name: 'PodLifeTime', args: { states: ['Succeeded'] } }],
      want: 'status.phase!=Pending,status.phase!=Running,status.phase!=Unknown',
    },
    {
      name: 'a policy that can select no phase reads everything (and selects nothing)',
      plugins: [{ name: 'RemoveFailedPods', args: { reasons: ['Running'] } }],
      want: undefined,
    },
  ])('$name', ({ plugins, want }) => {
    expect(phaseFieldSelector(policyOf(plugins))).toBe(want);
  });

  it('never hides a pod the policy would select (checked against decide)', () => {
    const policy = policyOf([
      { name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 0 } },
      { name: 'PodLifeTime', args: { states: ['Succeeded'] } },
    ]);
    const pods = [pod('a').failed(), pod('b').succeeded(), pod('c').running(), pod('d').phase('Pending')].map((p) => p.build());
    const selector = phaseFieldSelector(policy)!;
    const excluded = selector.split(',').map((s) => s.replace('status.phase!=', ''));
    for (const d of decide(policy, { pods }, NOW).decisions) {
      const phase = pods.find((p) => p.metadata.uid === d.uid)!.status!.phase!;
      expect(excluded).not.toContain(phase);
    }
  });
});

describe('selectsOnlyFinished: every decision a delete', () => {
  it.each([
    { plugins: [{ name: 'RemoveFailedPods' }], want: true },
    { plugins: [{ name: 'PodLifeTime', args: { states: ['Succeeded', 'Failed'] } }], want: true },
    { plugins: [{ name: 'PodLifeTime', args: { states: ['Failed', 'Running'] } }], want: false },
    { plugins: [{ name: 'PodLifeTime', args: { states: ['Succeeded', 'OOMKilled'] } }], want: false },
    { plugins: [{ name: 'PodLifeTime', args: { maxPodLifeTimeSeconds: 60 } }], want: false },
    { plugins: [{ name: 'RemovePodsHavingTooManyRestarts', args: { podRestartThreshold: 3 } }], want: false },
  ])('$plugins.0.name $plugins.0.args: $want', ({ plugins, want }) => {
    expect(selectsOnlyFinished(policyOf(plugins))).toBe(want);
  });
});
