import { describe, expect, it } from 'vitest';
import { decide } from '../../selection/decide.js';
import { NOW, pod, type PodBuilder } from '../../../test/fixtures/pods.js';
import { policyOf } from '../../../test/fixtures/policy.js';

function selected(args: Record<string, unknown> | undefined, pods: PodBuilder[]): string[] {
  const plan = decide(policyOf([{ name: 'RemoveFailedPods', args }]), { pods: pods.map((p) => p.build()) }, NOW);
  return plan.decisions.map((d) => d.name);
}

const HOUR = 3600;

describe('RemoveFailedPods', () => {
  it.each([
    {
      name: 'with no arguments, Failed pods older than the default 3600 s are selected',
      args: undefined,
      pods: [
        pod('old-failed')
          .age(2 * HOUR)
          .failed(),
        pod('new-failed')
          .age(HOUR / 2)
          .failed(),
        pod('old-ok')
          .age(2 * HOUR)
          .succeeded(),
      ],
      want: ['old-failed'],
    },
    {
      name: 'only the Failed phase counts, even when a reason matches',
      args: { reasons: ['Error'], minPodLifetimeSeconds: 0 },
      pods: [pod('running-with-error').running().waiting('CrashLoopBackOff'), pod('failed-error').failed({ reason: 'Error' })],
      want: ['failed-error'],
    },
    {
      name: 'reasons match the pod status reason',
      args: { reasons: ['NodeAffinity'], minPodLifetimeSeconds: 0 },
      pods: [pod('affinity').phase('Failed', 'NodeAffinity'), pod('other').phase('Failed', 'Evicted')],
      want: ['affinity'],
    },
    {
      name: 'reasons match a container terminated reason',
      args: { reasons: ['OOMKilled'], minPodLifetimeSeconds: 0 },
      pods: [pod('oom').failed({ reason: 'OOMKilled', exitCode: 137 }), pod('err').failed({ reason: 'Error' })],
      want: ['oom'],
    },
    {
      name: 'exit codes select among Failed pods, ranges included',
      args: { exitCodes: ['128-255'], minPodLifetimeSeconds: 0 },
      pods: [pod('sigkill').failed({ exitCode: 137 }), pod('exit-1').failed({ exitCode: 1 })],
      want: ['sigkill'],
    },
    {
      name: 'an init container exit code counts with includingInitContainers',
      args: { exitCodes: [3], includingInitContainers: true, minPodLifetimeSeconds: 0 },
      pods: [pod('bad-data').phase('Failed').initContainerExited(3), pod('ok-data').phase('Failed').initContainerExited(0)],
      want: ['bad-data'],
    },
    {
      name: 'excludeOwnerKinds keeps pods owned by those kinds',
      args: { excludeOwnerKinds: ['Job'], minPodLifetimeSeconds: 0 },
      pods: [pod('job-pod').failed().ownedBy('Job'), pod('rs-pod').failed()],
      want: ['rs-pod'],
    },
    {
      name: 'namespaces and labelSelector narrow the selection',
      args: { minPodLifetimeSeconds: 0, namespaces: { include: ['batch'] }, labelSelector: { matchLabels: { team: 'a' } } },
      pods: [
        pod('a').inNamespace('batch').labels({ team: 'a' }).failed(),
        pod('b').inNamespace('batch').labels({ team: 'b' }).failed(),
        pod('c').inNamespace('web').labels({ team: 'a' }).failed(),
      ],
      want: ['a'],
    },
    // descheduler v0.36.0 rejects only age < minPodLifetimeSeconds (found by test/conformance).
    {
      name: 'a Failed pod exactly minPodLifetimeSeconds old is selected',
      args: { minPodLifetimeSeconds: 600 },
      pods: [pod('exactly').age(600).failed(), pod('younger').age(599).failed()],
      want: ['exactly'],
    },
    {
      name: 'with minPodLifetimeSeconds 0, a pod that failed in its first second is selected',
      args: { minPodLifetimeSeconds: 0, exitCodes: [3], includingInitContainers: true },
      pods: [pod('bad-input').age(0).phase('Failed').initContainerExited(3)],
      want: ['bad-input'],
    },
    {
      name: 'reasons are container and pod reasons, not the phase: reasons [Failed] does not select every Failed pod',
      args: { reasons: ['Failed'], minPodLifetimeSeconds: 0 },
      pods: [pod('plain-error').failed({ reason: 'Error' })],
      want: [],
    },
  ])('$name', ({ args, pods, want }) => {
    expect(selected(args, pods)).toEqual(want);
  });
});
