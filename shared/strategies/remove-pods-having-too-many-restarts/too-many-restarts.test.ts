import { describe, expect, it } from 'vitest';
import { decide } from '../../selection/decide.js';
import { NOW, pod, type PodBuilder } from '../../../test/fixtures/pods.js';
import { policyOf } from '../../../test/fixtures/policy.js';

function selected(args: Record<string, unknown>, pods: PodBuilder[]): string[] {
  const plan = decide(policyOf([{ name: 'RemovePodsHavingTooManyRestarts', args }]), { pods: pods.map((p) => p.build()) }, NOW);
  return plan.decisions.map((d) => d.name);
}

describe('RemovePodsHavingTooManyRestarts', () => {
  it.each([
    {
      name: 'a pod at the threshold is selected and one below it is not',
      args: { podRestartThreshold: 5 },
      pods: [pod('at').restarts(5), pod('below').restarts(4)],
      want: ['at'],
    },
    {
      name: 'init container restarts count only with includingInitContainers',
      args: { podRestartThreshold: 5 },
      pods: [pod('mixed').restarts(3, 3)],
      want: [],
    },
    {
      name: 'init container restarts are added with includingInitContainers',
      args: { podRestartThreshold: 5, includingInitContainers: true },
      pods: [pod('mixed').restarts(3, 3)],
      want: ['mixed'],
    },
    {
      name: 'states narrow to crash-looping pods',
      args: { podRestartThreshold: 3, states: ['CrashLoopBackOff'] },
      pods: [pod('looping').waiting('CrashLoopBackOff', 7), pod('recovered').restarts(7)],
      want: ['looping'],
    },
    {
      name: 'the most restarted pods come first',
      args: { podRestartThreshold: 1 },
      pods: [pod('some').restarts(3), pod('most').restarts(30), pod('few').restarts(1)],
      want: ['most', 'some', 'few'],
    },
    {
      name: 'a running pod is evicted, not deleted, and namespaces narrow the selection',
      args: { podRestartThreshold: 2, namespaces: { exclude: ['web'] } },
      pods: [pod('ml-pod').inNamespace('ml').restarts(9), pod('web-pod').inNamespace('web').restarts(9)],
      want: ['ml-pod'],
    },
  ])('$name', ({ args, pods, want }) => {
    expect(selected(args, pods)).toEqual(want);
  });

  it('evicts running pods through the Eviction API rather than deleting them', () => {
    const plan = decide(
      policyOf([{ name: 'RemovePodsHavingTooManyRestarts', args: { podRestartThreshold: 2 } }]),
      { pods: [pod('crashy').restarts(4).build()] },
      NOW,
    );
    expect(plan.decisions.map((d) => [d.action, d.reason])).toEqual([['evict', 'RemovePodsHavingTooManyRestarts: 4 restarts (threshold 2)']]);
  });
});
