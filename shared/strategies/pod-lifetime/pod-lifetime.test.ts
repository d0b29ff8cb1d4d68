import { describe, expect, it } from 'vitest';
import { decide } from '../../selection/decide.js';
import { NOW, pod, type PodBuilder } from '../../../test/fixtures/pods.js';
import { policyOf } from '../../../test/fixtures/policy.js';

// PodLifeTime alone, through the whole core (with a gate that lets ordinary owned pods
// through), so each row shows what a user of the strategy sees.

function selected(args: Record<string, unknown>, pods: PodBuilder[]): string[] {
  const plan = decide(policyOf([{ name: 'PodLifeTime', args }]), { pods: pods.map((p) => p.build()) }, NOW);
  return plan.decisions.map((d) => d.name);
}

const HOUR = 3600;

describe('PodLifeTime', () => {
  it.each([
    {
      name: 'a pod older than maxPodLifeTimeSeconds is selected and a younger one is not',
      args: { maxPodLifeTimeSeconds: HOUR },
      pods: [pod('old').age(2 * HOUR), pod('young').age(HOUR / 2)],
      want: ['old'],
    },
    {
      name: 'a pod exactly maxPodLifeTimeSeconds old is kept (the limit is strict)',
      args: { maxPodLifeTimeSeconds: HOUR },
      pods: [pod('edge').age(HOUR)],
      want: [],
    },
    {
      name: 'states match the pod phase, Succeeded and Failed included',
      args: { states: ['Succeeded', 'Failed'] },
      pods: [pod('done').succeeded(), pod('broken').failed(), pod('busy').running()],
      want: ['done', 'broken'],
    },
    {
      name: 'states match a pod status reason',
      args: { states: ['NodeLost'] },
      pods: [pod('lost').phase('Unknown', 'NodeLost'), pod('fine')],
      want: ['lost'],
    },
    {
      name: 'states match a container waiting reason',
      args: { states: ['CrashLoopBackOff'] },
      pods: [pod('looping').waiting('CrashLoopBackOff', 4), pod('pulling').waiting('ImagePullBackOff')],
      want: ['looping'],
    },
    {
      name: 'states match a container terminated reason',
      args: { states: ['OOMKilled'] },
      pods: [pod('oom').failed({ exitCode: 137, reason: 'OOMKilled' }), pod('err').failed({ reason: 'Error' })],
      want: ['oom'],
    },
    {
      name: 'init container states count only with includingInitContainers',
      args: { states: ['OOMKilled'] },
      pods: [pod('init-oom').initContainerExited(137, 'fetch', 'OOMKilled')],
      want: [],
    },
    {
      name: 'init container states count with includingInitContainers',
      args: { states: ['OOMKilled'], includingInitContainers: true },
      pods: [pod('init-oom').initContainerExited(137, 'fetch', 'OOMKilled')],
      want: ['init-oom'],
    },
    {
      name: 'ephemeral container states count only with includingEphemeralContainers',
      args: { states: ['ImagePullBackOff'], includingEphemeralContainers: true },
      pods: [pod('debugged').ephemeralWaiting('ImagePullBackOff'), pod('plain')],
      want: ['debugged'],
    },
    {
      name: 'exit codes match a terminated container, single codes and ranges alike',
      args: { exitCodes: [3, '128-255'] },
      pods: [pod('bad-input').failed({ exitCode: 3 }), pod('killed').failed({ exitCode: 143 }), pod('plain-error').failed({ exitCode: 1 })],
      want: ['bad-input', 'killed'],
    },
    {
      name: 'an init container exiting 3 is matched when init containers are included',
      args: { exitCodes: [3], includingInitContainers: true },
      pods: [pod('fetch-failed').phase('Failed').initContainerExited(3)],
      want: ['fetch-failed'],
    },
    {
      name: 'an init container exit code is ignored without includingInitContainers',
      args: { exitCodes: [3] },
      pods: [pod('fetch-failed').phase('Failed').initContainerExited(3)],
      want: [],
    },
    {
      name: 'categories are ANDed: Failed and exit code 137 and older than an hour',
      args: { states: ['Failed'], exitCodes: [137], maxPodLifeTimeSeconds: HOUR },
      pods: [
        pod('all-three')
          .age(2 * HOUR)
          .failed({ exitCode: 137 }),
        pod('too-young').age(60).failed({ exitCode: 137 }),
        pod('other-code')
          .age(2 * HOUR)
          .failed({ exitCode: 1 }),
      ],
      want: ['all-three'],
    },
    {
      name: 'a Failed pod with exit code 137 owned by a Job is kept when Job is excluded',
      args: { states: ['Failed'], ownerKinds: { exclude: ['Job'] } },
      pods: [pod('job-pod').failed({ exitCode: 137 }).ownedBy('Job'), pod('rs-pod').failed({ exitCode: 137 })],
      want: ['rs-pod'],
    },
    {
      name: 'ownerKinds include selects only pods with such an owner',
      args: { states: ['Succeeded'], ownerKinds: { include: ['Job'] } },
      pods: [pod('job-done').succeeded().ownedBy('Job'), pod('rs-done').succeeded()],
      want: ['job-done'],
    },
    {
      name: 'a condition with minTimeSinceLastTransitionSeconds needs a transition that long ago',
      args: { states: ['Succeeded'], conditions: [{ reason: 'PodCompleted', status: 'True', minTimeSinceLastTransitionSeconds: 4 * HOUR }] },
      pods: [
        pod('idle')
          .succeeded()
          .condition('Ready', 'True', { reason: 'PodCompleted', secondsAgo: 5 * HOUR }),
        pod('recent').succeeded().condition('Ready', 'True', { reason: 'PodCompleted', secondsAgo: HOUR }),
        pod('no-time').succeeded().condition('Ready', 'True', { reason: 'PodCompleted' }),
      ],
      want: ['idle'],
    },
    {
      name: 'condition filters are ORed',
      args: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'DisruptionTarget', status: 'True' },
        ],
      },
      pods: [pod('unready').condition('Ready', 'False'), pod('target').condition('DisruptionTarget', 'True'), pod('ready').condition('Ready', 'True')],
      want: ['unready', 'target'],
    },
    {
      name: 'namespaces include restricts to those namespaces',
      args: { maxPodLifeTimeSeconds: 60, namespaces: { include: ['ml'] } },
      pods: [pod('in').inNamespace('ml'), pod('out').inNamespace('web')],
      want: ['in'],
    },
    {
      name: 'namespaces exclude skips those namespaces',
      args: { maxPodLifeTimeSeconds: 60, namespaces: { exclude: ['ml'] } },
      pods: [pod('in').inNamespace('ml'), pod('out').inNamespace('web')],
      want: ['out'],
    },
    {
      name: 'labelSelector matchLabels and matchExpressions must all hold',
      args: {
        maxPodLifeTimeSeconds: 60,
        labelSelector: { matchLabels: { component: 'redis' }, matchExpressions: [{ key: 'environment', operator: 'NotIn', values: ['dev'] }] },
      },
      pods: [
        pod('prod-redis').labels({ component: 'redis', environment: 'prod' }),
        pod('dev-redis').labels({ component: 'redis', environment: 'dev' }),
        pod('web').labels({ component: 'web' }),
      ],
      want: ['prod-redis'],
    },
    {
      name: 'pods are ordered oldest first',
      args: { maxPodLifeTimeSeconds: 60 },
      pods: [pod('mid').age(2 * HOUR), pod('oldest').age(3 * HOUR), pod('newest').age(HOUR)],
      want: ['oldest', 'mid', 'newest'],
    },
    {
      name: 'with a transition threshold, the latest matching transition orders pods',
      args: { conditions: [{ type: 'Ready', status: 'False', minTimeSinceLastTransitionSeconds: 60 }] },
      pods: [
        pod('old-but-recent')
          .age(10 * HOUR)
          .condition('Ready', 'False', { secondsAgo: 600 }),
        pod('young-but-long').age(HOUR).condition('Ready', 'False', { secondsAgo: 1800 }),
      ],
      want: ['young-but-long', 'old-but-recent'],
    },
  ])('$name', ({ args, pods, want }) => {
    expect(selected(args, pods)).toEqual(want);
  });

  it('explains each selection in words', () => {
    const plan = decide(
      policyOf([{ name: 'PodLifeTime', args: { states: ['Failed'], exitCodes: ['128-255'], maxPodLifeTimeSeconds: HOUR } }]),
      {
        pods: [
          pod('killed')
            .age(3 * HOUR)
            .failed({ exitCode: 137, container: 'trainer' })
            .build(),
        ],
      },
      NOW,
    );
    expect(plan.decisions[0]?.reason).toBe('PodLifeTime: phase Failed; container trainer exited 137 (in 128-255); age 3h0m > 1h0m');
    expect(plan.decisions[0]?.action).toBe('delete');
  });
});
