// Events as series on the event path (issue 45): a storm of Failed pods of one Job through
// podTerminated, against the real control plane, counted in its audit log. The first removal's
// Event on its pod is written at once; the others are counted into one events.k8s.io/v1 Event
// about the Job (series.count), written when its interval passes, its window ends or the
// process stops: Event writes per storm are bounded by owners x windows, not by pods.
import { BatchV1Api, CoreV1Api, EventsV1Api, type V1Pod } from '@kubernetes/client-node';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { inOrder } from '../../../shared/pool/in-order.js';
import { policyDoc } from '../../fixtures/policy.js';
import { describeWrite, kubectl, notControlPlane, sharedAudit, sharedCluster, testNamespace, waitFor, EXIT_CODE_ANNOTATION } from '../../harness/index.js';
import { startServerProcess, type ServerProcess } from '../../harness/function-process.js';
import { knativeRequest, runPod, runtimeFor, send, serve, tidyEvents } from './setup.js';

const ns = testNamespace('fn-series');
const kc = sharedCluster().kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const batch = kc.makeApiClient(BatchV1Api);
const eventsApi = kc.makeApiClient(EventsV1Api);

const POLICY = policyDoc([{ name: 'PodLifeTime', args: { states: ['Failed'], exitCodes: [3] } }], {
  evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
});
const N = 12;

/**
 * A real Job whose N pods all fail and stay (Indexed, backoffLimitPerIndex 0: no retries, no
 * pod deleted by the Job controller), as a storm leaves them; returns them once all are Failed.
 */
async function failedJob(name: string, n: number): Promise<{ uid: string; pods: V1Pod[] }> {
  const job = await batch.createNamespacedJob({
    namespace: ns.name,
    body: {
      metadata: { name },
      spec: {
        completionMode: 'Indexed',
        completions: n,
        parallelism: n,
        backoffLimitPerIndex: 0,
        template: {
          metadata: { annotations: { [EXIT_CODE_ANNOTATION]: '3' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
        },
      },
    },
  });
  const pods = await waitFor(
    `the ${n} pods of Job ${name} Failed`,
    async () => {
      const list = await core.listNamespacedPod({ namespace: ns.name, labelSelector: `batch.kubernetes.io/job-name=${name}` });
      // Settled: the Job controller has counted each (its tracking finalizer removed), so no
      // later write of its own makes the event's copy stale.
      const failed = list.items.filter((p) => p.status?.phase === 'Failed' && !p.metadata?.finalizers?.length);
      // A list's items carry no apiVersion and kind; an event's object does.
      return failed.length === n ? failed.map((p) => ({ ...p, apiVersion: 'v1', kind: 'Pod' })) : undefined;
    },
    { timeoutMs: 120_000 },
  );
  return { uid: job.metadata!.uid!, pods };
}

/** kube-tidy's Events about an object, by uid (the series about the Job, or a pod's own). */
const tidyAbout = async (uid: string) =>
  (await eventsApi.listNamespacedEvent({ namespace: ns.name, fieldSelector: `regarding.uid=${uid}` })).items.filter(
    (e) => e.reportingController === 'kube-tidy.dev/kube-tidy',
  );

/** kube-tidy's Event writes (create, update, patch) in the test's namespace since `mark`, as the API server logged them (the Job controller records its own). */
async function eventWrites(mark: number) {
  return (await sharedAudit().settledSince(mark)).filter(
    (w) => w.resource === 'events' && w.namespace === ns.name && ['create', 'update', 'patch'].includes(w.verb) && notControlPlane(w),
  );
}

/** Each pod's update event to podTerminated, 4 in flight; every answer must be `deleted`. */
async function storm(agent: ReturnType<typeof serve>, pods: readonly V1Pod[]): Promise<void> {
  const { results } = await inOrder(
    pods,
    4,
    () => false,
    async (p) => (await send(agent, knativeRequest('binary', 'update', p))).body.outcome as string,
  );
  expect(results).toEqual(pods.map(() => 'deleted'));
}

describe('podTerminated: Events as series under a storm', () => {
  it(`a storm of ${N} Failed pods of one Job: one Event on the first pod at once, then one series Event about the Job counting all ${N}, written at the stop`, async () => {
    // A window and interval longer than the test: only the stop writes the series.
    const rt = await runtimeFor(POLICY, { EVENT_SERIES_WINDOW_SECONDS: '3600', EVENT_SERIES_INTERVAL_SECONDS: '600' });
    const agent = serve(podTerminated, rt);
    const { uid, pods } = await failedJob('storm', N);
    const mark = sharedAudit().mark();
    const started = Date.now();

    await storm(agent, pods);

    const before = await eventWrites(mark);
    const elapsed = Date.now() - started;
    const own = (await Promise.all(pods.map((p) => tidyEvents(ns.name, p.metadata!.uid!)))).flat();
    expect(own.map((e) => [e.reason, e.regarding?.kind])).toEqual([['Deleted', 'Pod']]);
    // The pod's own Event, and no more unless an interval passed during the storm.
    expect(before.length, before.map(describeWrite).join('\n')).toBeLessThanOrEqual(1 + Math.floor(elapsed / 600_000));

    expect(await rt.drainEvents(30_000)).toMatchObject({ drained: true });

    const [series, ...more] = await tidyAbout(uid);
    expect(more).toEqual([]);
    expect(series).toMatchObject({
      reason: 'PodsDeleted',
      action: 'Delete',
      type: 'Normal',
      regarding: { kind: 'Job', name: 'storm', uid },
      series: { count: N },
    });
    const first = own[0]!.regarding!.name!;
    expect(series!.note).toContain(`kube-tidy deleted pods of Job storm as PodLifeTime selected them: ${first} (with an Event of its own), `);
    // kubectl's view (core/v1): the count it shows as "(x12 over ...)".
    const legacy = (await core.listNamespacedEvent({ namespace: ns.name, fieldSelector: `involvedObject.uid=${uid}` })).items.filter(
      (e) => e.reportingComponent === 'kube-tidy.dev/kube-tidy',
    );
    expect(legacy.map((e) => [e.reason, e.series?.count])).toEqual([['PodsDeleted', N]]);
    const shown = await kubectl(sharedCluster(), ['events', '-n', ns.name, '--for', 'job/storm']);
    const described = await kubectl(sharedCluster(), ['describe', 'job', '-n', ns.name, 'storm']);
    // What a person reads: the count beside the Event, "1s (x12 over 2s)".
    expect(shown).toMatch(new RegExp(`\\(x${N} over [^)]*\\)\\s+Normal\\s+PodsDeleted\\s+Job/storm\\s+kube-tidy deleted pods of Job storm`));
    expect(described).toMatch(
      new RegExp(`Normal\\s+PodsDeleted\\s+\\S+ \\(x${N} over [^)]*\\)\\s+kube-tidy\\.dev/kube-tidy\\s+kube-tidy deleted pods of Job storm`),
    );
    const writes = await eventWrites(mark);
    expect(writes.length, writes.map(describeWrite).join('\n')).toBeLessThanOrEqual(2 + Math.floor(elapsed / 600_000));
    expect(writes.filter((w) => w.code >= 400)).toEqual([]);
  });

  it('a single pod removed alone gets its own Event right away, and the stop writes nothing more', async () => {
    const rt = await runtimeFor(POLICY);
    const agent = serve(podTerminated, rt);
    const pod = await runPod(core, ns.name, 'alone', { exitCode: 3 });
    const mark = sharedAudit().mark();

    expect((await send(agent, knativeRequest('binary', 'update', pod))).body.outcome).toBe('deleted');

    // Right away: recorded before the answer, no timer involved.
    expect((await tidyEvents(ns.name, pod.metadata!.uid!)).map((e) => [e.reason, e.action])).toEqual([['Deleted', 'Delete']]);
    expect(await rt.drainEvents(30_000)).toMatchObject({ drained: true });
    const w = await eventWrites(mark);
    expect(
      w.map((x) => x.verb),
      w.map((x) => `${describeWrite(x)} ${x.userAgent}`).join('\n'),
    ).toEqual(['create']);
  });

  it('without a stop, the process writes the series once its interval has passed, and updates that one Event in place', async () => {
    const rt = await runtimeFor(POLICY, { EVENT_SERIES_WINDOW_SECONDS: '3600', EVENT_SERIES_INTERVAL_SECONDS: '1' });
    const agent = serve(podTerminated, rt);
    const { uid, pods } = await failedJob('trickle', 4);
    const mark = sharedAudit().mark();

    await storm(agent, pods);

    // The process's timer writes it (no drain); whatever the storm's pace, the count reaches 4.
    await waitFor('the series Event about the Job counts 4', async () => (await tidyAbout(uid))[0]?.series?.count === 4);
    expect((await tidyAbout(uid)).map((e) => [e.reason, e.series?.count])).toEqual([['PodsDeleted', 4]]);
    const writes = await eventWrites(mark);
    expect(writes.filter((w) => w.code >= 400).map(describeWrite)).toEqual([]);
    // One create for the first pod's own Event, one for the series; any more are its updates.
    expect(writes.filter((w) => w.verb === 'create')).toHaveLength(2);
    expect(writes.filter((w) => w.verb !== 'create').every((w) => w.verb === 'patch')).toBe(true);
  });

  const processes: ServerProcess[] = [];
  afterAll(async () => {
    for (const p of processes) await p.stop();
  });

  it("the image's server stopped by SIGTERM writes the series it counted before it exits (nothing lost, within the shutdown deadline)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-series-'));
    writeFileSync(join(dir, 'policy.json'), JSON.stringify(POLICY));
    const p = await startServerProcess('podTerminated', {
      POLICY_FILE: join(dir, 'policy.json'),
      KUBECONFIG: sharedCluster().kubeconfigPath,
      BRAKES_NAMESPACE: `brakes-series-${process.pid}`,
      EVENT_SERIES_WINDOW_SECONDS: '3600',
      EVENT_SERIES_INTERVAL_SECONDS: '600',
    });
    processes.push(p);
    const { uid, pods } = await failedJob('stopped', 4);
    for (const pod of pods) {
      const m = knativeRequest('binary', 'update', pod);
      const res = await fetch(p.url, { method: 'POST', headers: m.headers, body: m.body });
      expect(await res.json()).toMatchObject({ outcome: 'deleted' });
    }
    // Counted, not yet written: the interval is 10 minutes.
    expect(await tidyAbout(uid)).toEqual([]);

    p.kill('SIGTERM');

    expect(await p.exited).toMatchObject({ code: 0 });
    expect((await tidyAbout(uid)).map((e) => [e.reason, e.series?.count])).toEqual([['PodsDeleted', 4]]);
  });
});
