import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadPolicyText } from './load.js';
import { decide } from '../selection/decide.js';
import { NOW, pod, type PodBuilder } from '../../test/fixtures/pods.js';

// The descheduler's documented examples parse unchanged and do what their docs say.

const DIR = new URL('../../test/fixtures/policies/descheduler/', import.meta.url);
const DAY = 86400;

function names(file: string, pods: PodBuilder[]): string[] {
  const { policy } = loadPolicyText(readFileSync(new URL(file, DIR), 'utf8'));
  return decide(policy, { pods: pods.map((p) => p.build()) }, NOW).decisions.map((d) => d.name);
}

describe("the descheduler's example policies", () => {
  it.each([
    {
      file: 'pod-lifetime-pending.yaml',
      says: 'pods older than a day that are Pending or initializing are evicted',
      pods: [
        pod('stuck')
          .age(2 * DAY)
          .phase('Pending'),
        pod('init')
          .age(2 * DAY)
          .waiting('PodInitializing'),
        pod('running').age(2 * DAY),
        pod('new').age(60).phase('Pending'),
      ],
      want: ['stuck', 'init'],
    },
    {
      file: 'pod-lifetime-completed-transition.yaml',
      says: 'Succeeded pods in default whose PodCompleted condition is over 4 hours old are evicted',
      pods: [
        // As the kubelet reports a finished pod: Initialized=True and Ready=False, both PodCompleted.
        pod('idle')
          .succeeded()
          .condition('Initialized', 'True', { reason: 'PodCompleted', secondsAgo: 5 * 3600 })
          .condition('Ready', 'False', { reason: 'PodCompleted', secondsAgo: 5 * 3600 }),
        pod('recent').succeeded().condition('Initialized', 'True', { reason: 'PodCompleted', secondsAgo: 3600 }),
        pod('elsewhere')
          .inNamespace('ml')
          .succeeded()
          .condition('Initialized', 'True', { reason: 'PodCompleted', secondsAgo: 5 * 3600 }),
      ],
      want: ['idle'],
    },
    {
      file: 'pod-lifetime-failed-not-jobs.yaml',
      says: 'Failed pods exiting 1, older than an hour, not owned by Jobs, are evicted',
      pods: [pod('rs-fail').failed({ exitCode: 1 }), pod('job-fail').failed({ exitCode: 1 }).ownedBy('Job'), pod('other-code').failed({ exitCode: 2 })],
      want: ['rs-fail'],
    },
    {
      file: 'pod-lifetime-labels.yaml',
      says: 'only redis cache pods outside dev are evicted',
      pods: [
        pod('cache')
          .age(2 * DAY)
          .labels({ component: 'redis', tier: 'cache', environment: 'prod' }),
        pod('dev-cache')
          .age(2 * DAY)
          .labels({ component: 'redis', tier: 'cache', environment: 'dev' }),
        pod('db')
          .age(2 * DAY)
          .labels({ component: 'redis', tier: 'db' }),
      ],
      want: ['cache'],
    },
    {
      file: 'pod-lifetime-priority-threshold.yaml',
      says: 'only pods below priority 10000 are evicted',
      pods: [
        pod('low')
          .age(2 * DAY)
          .priority(100),
        pod('high')
          .age(2 * DAY)
          .priority(10000),
      ],
      want: ['low'],
    },
    {
      file: 'remove-failed-pods.yaml',
      says: 'Failed pods with reason NodeAffinity, not Job-owned, older than an hour, are evicted',
      pods: [
        pod('affinity').phase('Failed', 'NodeAffinity'),
        pod('job').phase('Failed', 'NodeAffinity').ownedBy('Job'),
        pod('other').phase('Failed', 'Evicted'),
      ],
      want: ['affinity'],
    },
    {
      file: 'too-many-restarts-helm.yaml',
      says: 'pods with 100 restarts counting init containers are evicted, pods with PVCs are protected, local storage is not',
      pods: [pod('flappy').restarts(60, 40).volume('emptyDir'), pod('stateful').restarts(200).volume('pvc'), pod('calm').restarts(99)],
      want: ['flappy'],
    },
  ])('$file: $says', ({ file, pods, want }) => {
    expect(names(file, pods)).toEqual(want);
  });
});
