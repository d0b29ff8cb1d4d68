import { BatchV1Api, CoreV1Api, PatchStrategy, setHeaderOptions, type V1OwnerReference, type V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { CloudEvent } from 'cloudevents';
import { httpMessage } from '../../../shared/cloudevents/index.js';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { sweep } from '../../../functions/sweep.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { policyDoc } from '../../fixtures/policy.js';
import { knativeRequest, pingRequest, runtimeFor, send, serve } from '../functions/setup.js';

// kubeTidy.retention on the real control plane: the newest N Failed pods of each owner stay,
// through podTerminated events (one event at a time, as each pod fails) and through a sweep.
//
// The pods are made by hand so that when each finished is exact: owned by a real Job (the
// garbage collector removes pods whose owner is missing) that another controller manages
// (spec.managedBy: the Job controller neither adds pods nor releases these), labelled as the
// Job controller labels its pods, never scheduled (no node runs them), and given a Failed
// status with the container's finishedAt through the status subresource.

const events = testNamespace('retention-events');
const swept = testNamespace('retention-sweep');
const cronSwept = testNamespace('retention-cron-sweep');
const cronEvents = testNamespace('retention-cron-events');
const resource = testNamespace('retention-resource');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
const batch = () => sharedCluster().kubeConfig().makeApiClient(BatchV1Api);
const TEMPLATE = { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] } };

function policyFor(namespace: string, failed: number) {
  return {
    ...policyDoc([{ name: 'PodLifeTime', args: { states: ['Failed'], namespaces: { include: [namespace] } } }]),
    kubeTidy: { retention: [{ strategies: ['PodLifeTime'], failed }] },
  };
}

const controllerRef = (kind: string, o: { metadata?: { name?: string; uid?: string } }): V1OwnerReference => ({
  apiVersion: 'batch/v1',
  kind,
  name: o.metadata!.name!,
  uid: o.metadata!.uid!,
  controller: true,
});

async function job(namespace: string, name: string, cronJob?: { metadata?: { name?: string; uid?: string } }) {
  return batch().createNamespacedJob({
    namespace,
    body: {
      metadata: { name, ...(cronJob ? { ownerReferences: [controllerRef('CronJob', cronJob)] } : {}) },
      // Left to another controller (spec.managedBy): the Job controller neither runs it nor adopts or releases its pods.
      spec: { suspend: true, managedBy: 'kube-tidy.dev/test', template: TEMPLATE },
    },
  });
}

/** A Failed pod of `owner` whose container finished `finishedAt`, as the Job controller labels its pods. */
async function failedPod(namespace: string, name: string, owner: { metadata?: { name?: string; uid?: string } }, finishedAt: Date): Promise<V1Pod> {
  const uid = owner.metadata!.uid!;
  const created = await core().createNamespacedPod({
    namespace,
    body: {
      metadata: {
        name,
        labels: {
          'batch.kubernetes.io/controller-uid': uid,
          'controller-uid': uid,
          'batch.kubernetes.io/job-name': owner.metadata!.name!,
          'job-name': owner.metadata!.name!,
        },
        ownerReferences: [controllerRef('Job', owner)],
      },
      spec: { schedulerName: 'kube-tidy-test-nobody', restartPolicy: 'Never', containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
    },
  });
  const startedAt = new Date(finishedAt.getTime() - 5000);
  const terminated = { exitCode: 1, reason: 'Error', startedAt, finishedAt };
  return core().patchNamespacedPodStatus(
    {
      namespace,
      name,
      body: {
        status: {
          phase: 'Failed',
          containerStatuses: [{ name: 'main', image: created.spec!.containers[0]!.image, imageID: '', ready: false, restartCount: 0, state: { terminated } }],
        },
      },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

/**
 * What ApiServerSource sends in Reference mode (its default) when a pod changes: podTerminated
 * reads the stored pod and decides (removeSelected), including the older pods retention lets go.
 */
const podChanged = (namespace: string, name: string) =>
  httpMessage(new CloudEvent({ type: 'dev.knative.apiserver.ref.update', source: 'https://api', data: { apiVersion: 'v1', kind: 'Pod', name, namespace } }));

const remaining = async (namespace: string) =>
  (await core().listNamespacedPod({ namespace })).items
    .filter((p) => !p.metadata?.deletionTimestamp)
    .map((p) => p.metadata!.name!)
    .sort();

/** Ten finish times a minute apart, the last a minute ago: pod 9 is the newest. */
const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);

describe('keep the newest Failed pods of a Job', () => {
  it('through podTerminated events (Reference mode) as each pod fails: ten pods with failed: 3 leave exactly the three newest', async () => {
    const ns = events.name;
    // An Event per removal (no series, whose writes come on their own timer): each event's requests are its own.
    const rt = await runtimeFor(policyFor(ns, 3), { EVENT_SERIES_WINDOW_SECONDS: '0' });
    const agent = serve(podTerminated, rt);
    const owner = await job(ns, 'etl-28891');
    const answers = [];
    const requests: number[] = [];
    for (let i = 0; i < 10; i++) {
      // One at a time, as they would fail: each event sees only the pods failed before it.
      await failedPod(ns, `etl-28891-${i}`, owner, minutesAgo(10 - i));
      const before = rt.clients.throttle.sent;
      answers.push((await send(agent, podChanged(ns, `etl-28891-${i}`))).body);
      requests.push(rt.clients.throttle.sent - before);
    }
    expect(await remaining(ns)).toEqual(['etl-28891-7', 'etl-28891-8', 'etl-28891-9']);
    // Each newest pod is kept and explained; its event removes the one it pushed out.
    expect(answers[9]).toMatchObject({ outcome: 'kept', why: `as stored: PodLifeTime: 1st newest Failed of job ${ns}/etl-28891, keep 3` });
    expect(answers[9].older).toEqual([{ pod: `${ns}/etl-28891-6`, outcome: 'deleted', why: expect.stringContaining('PodLifeTime') }]);
    expect(answers.slice(0, 3).map((a) => a.older)).toEqual([undefined, undefined, undefined]);
    // Constant per event, however many pods the cluster has: GET the pod, LIST the namespace's
    // Jobs, LIST the Job's finished pods by label; then the DELETE of the older pod and its Event.
    expect(requests).toEqual([3, 3, 3, 5, 5, 5, 5, 5, 5, 5]);
  });

  it('through podTerminated events (Resource mode: the pod in the event) as each pod fails: the same three newest stay', async () => {
    const ns = resource.name;
    const agent = serve(podTerminated, await runtimeFor(policyFor(ns, 3)));
    const owner = await job(ns, 'etl-28892');
    const answers = [];
    for (let i = 0; i < 10; i++) {
      const pod = await failedPod(ns, `etl-28892-${i}`, owner, minutesAgo(10 - i));
      answers.push((await send(agent, knativeRequest('binary', 'update', pod))).body);
    }
    expect(await remaining(ns)).toEqual(['etl-28892-7', 'etl-28892-8', 'etl-28892-9']);
    // The event's copy is kept, yet it pushed the 4th newest out: removed on this event, not left to a sweep.
    expect(answers[9]).toMatchObject({ outcome: 'kept' });
    expect(answers[9].older).toEqual([{ pod: `${ns}/etl-28892-6`, outcome: 'deleted', why: expect.stringContaining('PodLifeTime') }]);
  });

  it('through a sweep over pages: ten pods with failed: 3 leave exactly the three newest, whatever the order they are listed in', async () => {
    const ns = swept.name;
    const owner = await job(ns, 'etl-28891');
    // Names in an order unrelated to when each finished: the list (by name) is not the age order.
    const order = [3, 9, 0, 7, 5, 1, 8, 2, 6, 4];
    for (const [i, n] of order.entries()) await failedPod(ns, `etl-${String.fromCharCode(97 + i)}`, owner, minutesAgo(10 - n));
    const newest = order.map((n, i) => [n, `etl-${String.fromCharCode(97 + i)}`] as const).filter(([n]) => n >= 7);
    const agent = serve(sweep, await runtimeFor(policyFor(ns, 3), { SWEEP_PAGE_SIZE: '3' }));
    const res = await send(agent, pingRequest());
    expect(res.status).toBe(200);
    expect(res.body.summary).toMatchObject({ selected: 7, outcomes: { deleted: 7 }, kept: 3 });
    expect(res.body.summary.pages).toBeGreaterThanOrEqual(4);
    expect(await remaining(ns)).toEqual(newest.map(([, name]) => name).sort());
    const third = newest.find(([n]) => n === 7)![1];
    expect(res.body.kept).toContainEqual({ namespace: ns, name: third, strategy: 'PodLifeTime', reason: `3rd newest Failed of job ${ns}/etl-28891, keep 3` });
  });
});

describe('keep the newest Failed pods of a CronJob', () => {
  async function cronJobWithTwoJobs(ns: string) {
    const cron = await batch().createNamespacedCronJob({
      namespace: ns,
      body: { metadata: { name: 'etl' }, spec: { suspend: true, schedule: '0 0 1 1 *', jobTemplate: { spec: { suspend: true, template: TEMPLATE } } } },
    });
    const first = await job(ns, 'etl-1', cron);
    const second = await job(ns, 'etl-2', cron);
    // The first run's pods finished earlier than the second's, except one retry of the first that failed last.
    const pods = [
      await failedPod(ns, 'first-0', first, minutesAgo(9)),
      await failedPod(ns, 'first-1', first, minutesAgo(8)),
      await failedPod(ns, 'second-0', second, minutesAgo(5)),
      await failedPod(ns, 'second-1', second, minutesAgo(4)),
      await failedPod(ns, 'first-2', first, minutesAgo(1)),
    ];
    return { ns, pods };
  }

  it('groups the pods of two Jobs of one CronJob in a sweep', async () => {
    const { ns } = await cronJobWithTwoJobs(cronSwept.name);
    const agent = serve(sweep, await runtimeFor(policyFor(ns, 2), { SWEEP_PAGE_SIZE: '2' }));
    const res = await send(agent, pingRequest());
    expect(res.body.summary).toMatchObject({ selected: 3, kept: 2 });
    expect(await remaining(ns)).toEqual(['first-2', 'second-1']);
    expect(res.body.kept).toContainEqual({
      namespace: ns,
      name: 'second-1',
      strategy: 'PodLifeTime',
      reason: `2nd newest Failed of cronjob ${ns}/etl, keep 2`,
    });
  });

  it('groups them on the event path too: one event of the newest pod removes the older pods of both Jobs', async () => {
    const { ns, pods } = await cronJobWithTwoJobs(cronEvents.name);
    const agent = serve(podTerminated, await runtimeFor(policyFor(ns, 2)));
    const res = await send(agent, podChanged(ns, pods[4]!.metadata!.name!));
    expect(res.body).toMatchObject({ outcome: 'kept', why: `as stored: PodLifeTime: 1st newest Failed of cronjob ${ns}/etl, keep 2` });
    expect(res.body.older.map((o: { pod: string; outcome: string }) => [o.pod, o.outcome]).sort()).toEqual([
      [`${ns}/first-0`, 'deleted'],
      [`${ns}/first-1`, 'deleted'],
      [`${ns}/second-0`, 'deleted'],
    ]);
    expect(await remaining(ns)).toEqual(['first-2', 'second-1']);
  });
});
