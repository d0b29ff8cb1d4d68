// Acting at eligibility on the real control plane: a Failed pod that RemoveFailedPods takes
// once it is 20 s old is gone within 30 s of that moment, with no pod LIST sent in between,
// (i) by the timer of the podTerminated instance that saw its event, with nothing else running,
// and (ii) after that instance is discarded (its timers stopped), by a fresh instance's tick
// reading the due list, and (iii) by a tick that was already holding when the entry was written,
// at its next look at the list. Each fails with its mechanism off: no timer, no entry in the
// list, or a tick that looks only once, leaves the pod where it is. (iv) A pod no event told
// anyone about is listed by a sweep that saw it due soon, and a tick acts on it at its time.
// (v) A Reference-mode event, which carries no object, schedules from the stored pod. The
// removal's decision CloudEvent says it was acted on at its eligibility, and by what (issue 33:
// without it a receiver, the demo included, cannot tell a timer's removal from an event's).
import { CoreV1Api } from '@kubernetes/client-node';
import { CloudEvent } from 'cloudevents';
import { httpMessage } from '../../../shared/cloudevents/encode.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PodDecision } from '../../../shared/notify/types.js';
import { receiver, type Receiver } from '../../fixtures/events/receiver.js';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { sweep } from '../../../functions/sweep.js';
import { policyDoc } from '../../fixtures/policy.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { exists, knativeRequest, pingRequest, runPod, send } from '../functions/setup.js';
import { countedRuntime, dueEntries, isDueRead, isPodList, serveParts } from './setup.js';

const ns = testNamespace('due');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
const AGE_S = 20;
const POLICY = policyDoc([{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: AGE_S } }], {
  evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
});

/** Waits for the pod to go, checking it is still there until just before `eligibleAt`: when it went (ms). */
async function goneAt(name: string, eligibleAt: number): Promise<number> {
  await waitFor(`${name} still there until its eligibleAt`, async () => Date.now() >= eligibleAt - 1_000 || undefined, { timeoutMs: 60_000, intervalMs: 200 });
  expect(await exists(core(), ns.name, name), 'not acted on before eligibleAt').toBeDefined();
  await waitFor(`${name} gone`, async () => !(await exists(core(), ns.name, name)), { timeoutMs: 45_000, intervalMs: 250 });
  return Date.now();
}

/** The decision CloudEvent a real receiver got for `name`'s removal. */
async function deletedEvent(sink: Receiver, name: string): Promise<PodDecision> {
  const of = () => sink.events.find((e) => e.type === 'dev.kube-tidy.pod.deleted.v1' && e.subject === `namespaces/${ns.name}/pods/${name}`);
  await waitFor(`the pod.deleted event of ${name}`, async () => of() !== undefined || undefined, { timeoutMs: 10_000 });
  return of()!.data as PodDecision;
}

describe('acting at eligibleAt', () => {
  let sink: Receiver;
  beforeAll(async () => {
    sink = await receiver();
  });
  afterAll(() => sink.close());
  // Every decision out as a CloudEvent: the sink in each instance's environment, as its host reads it at start.
  const withSink = (env: Record<string, string>) => ({ ...env, EVENTS_SINK: sink.url });

  it('(i) the instance that saw the event acts at eligibleAt by its own timer, with nothing else running and no pod LIST', async () => {
    const { rt, requests } = await countedRuntime(POLICY, withSink({ DUE_NAMESPACE: `${ns.name}-list` }));
    const parts = await podTerminated.setup(rt);
    const agent = serveParts(podTerminated, parts, rt);
    try {
      const pod = await runPod(core(), ns.name, 'timed', { exitCode: 1 });
      const res = await send(agent, knativeRequest('binary', 'update', pod));
      expect(res.status).toBe(200);
      const eligibleAt = Date.parse(res.body.eligibleAt);
      expect(eligibleAt).toBe(new Date(pod.metadata!.creationTimestamp!).getTime() + AGE_S * 1000);
      expect(res.body).toMatchObject({ outcome: 'nothing-to-do', scheduled: res.body.eligibleAt });
      // The words say it too: not just "no strategy selects it".
      expect(res.body.why).toBe(`no strategy selects it yet: time alone brings it in, test/RemoveFailedPods at ${res.body.eligibleAt}`);
      const gone = await goneAt('timed', eligibleAt);
      expect(gone - eligibleAt).toBeLessThan(30_000);
      expect(await deletedEvent(sink, 'timed')).toMatchObject({ origin: 'event', due: { at: res.body.eligibleAt, by: 'timer' } });
      expect(requests.filter(isPodList)).toEqual([]);
      // A GET of the pod, not a list, found it; and the entry was taken out of the list afterwards.
      expect(requests.some((r) => r.method === 'GET' && r.path === `/api/v1/namespaces/${ns.name}/pods/timed`)).toBe(true);
      await waitFor('the entry taken out of the due list', async () => (await dueEntries(`${ns.name}-list`)).length === 0 || undefined, { timeoutMs: 10_000 });
    } finally {
      parts.stop();
    }
  }, 180_000);

  it('(ii) after a restart between scheduling and acting, a fresh instance’s tick acts from the due list, with no pod LIST', async () => {
    const env = { DUE_NAMESPACE: `${ns.name}-restart` };
    const first = await countedRuntime(POLICY, withSink(env));
    const firstParts = await podTerminated.setup(first.rt);
    const pod = await runPod(core(), ns.name, 'listed', { exitCode: 1 });
    const res = await send(serveParts(podTerminated, firstParts, first.rt), knativeRequest('binary', 'update', pod));
    expect(res.status).toBe(200);
    const eligibleAt = Date.parse(res.body.eligibleAt);
    expect(res.body.scheduled).toBe(res.body.eligibleAt);
    // The instance is discarded: its timers stop, it never acts.
    firstParts.stop();
    expect(firstParts.due.timers.size).toBe(0);

    const fresh = await countedRuntime(POLICY, withSink(env));
    const freshParts = await podTerminated.setup(fresh.rt);
    const agent = serveParts(podTerminated, freshParts, fresh.rt);
    // Sent now (supertest sends when its answer is asked for), answered once it acted.
    const ticked = send(agent, pingRequest()).then((r) => r);
    expect(await dueEntries(env.DUE_NAMESPACE)).toEqual([pod.metadata!.uid]);
    const gone = await goneAt('listed', eligibleAt);
    const tick = await ticked;
    expect(tick.status).toBe(200);
    expect(tick.body).toMatchObject({ outcome: 'ticked', due: 1, outcomes: { deleted: 1 }, removed: 1 });
    expect(gone - eligibleAt).toBeLessThan(30_000);
    expect(await deletedEvent(sink, 'listed')).toMatchObject({ origin: 'event', due: { at: res.body.eligibleAt, by: 'tick' } });
    expect(fresh.requests.filter(isPodList)).toEqual([]);
    expect(first.requests.filter(isPodList)).toEqual([]);
    // The tick read the due list (a GET per shard each time it looked, every 10 s while it held, and one to take the entry out), nothing more of it.
    expect(tick.body.reads).toBeGreaterThanOrEqual(1);
    expect(tick.body.reads).toBeLessThanOrEqual(7);
    expect(fresh.requests.filter(isDueRead)).toHaveLength(4 * tick.body.reads + 1);
    // The list is empty afterwards: the next tick has nothing to do.
    expect(await dueEntries(env.DUE_NAMESPACE)).toEqual([]);
    freshParts.stop();
  }, 180_000);

  it('(iii) a tick already holding when the entry is written (the instance scheduled the pod, then died) finds it at its next look and acts on time', async () => {
    const env = { DUE_NAMESPACE: `${ns.name}-poll` };
    const ticking = await countedRuntime(POLICY, withSink(env));
    const tickingParts = await podTerminated.setup(ticking.rt);
    const pod = await runPod(core(), ns.name, 'late-entry', { exitCode: 1 });
    // The tick starts first: its first read of the due list finds nothing.
    const ticked = send(serveParts(podTerminated, tickingParts, ticking.rt), pingRequest()).then((r) => r);
    await waitFor('the tick’s first read', async () => ticking.requests.some(isDueRead) || undefined, { timeoutMs: 10_000, intervalMs: 50 });
    const first = await countedRuntime(POLICY, withSink(env));
    const firstParts = await podTerminated.setup(first.rt);
    const res = await send(serveParts(podTerminated, firstParts, first.rt), knativeRequest('binary', 'update', pod));
    const eligibleAt = Date.parse(res.body.eligibleAt);
    firstParts.stop();
    expect(await dueEntries(env.DUE_NAMESPACE)).toEqual([pod.metadata!.uid]);
    const gone = await goneAt('late-entry', eligibleAt);
    expect(gone - eligibleAt).toBeLessThan(30_000);
    expect((await ticked).body).toMatchObject({ outcome: 'ticked', due: 1, outcomes: { deleted: 1 }, removed: 1 });
    expect([...ticking.requests, ...first.requests].filter(isPodList)).toEqual([]);
    tickingParts.stop();
  }, 180_000);

  it('(v) a Reference-mode event (no object: the stored pod is read) schedules the pod too, and its timer acts at eligibleAt', async () => {
    const env = { DUE_NAMESPACE: `${ns.name}-ref` };
    const { rt, requests } = await countedRuntime(POLICY, withSink(env));
    const parts = await podTerminated.setup(rt);
    try {
      const pod = await runPod(core(), ns.name, 'by-ref', { exitCode: 1 });
      const ref = new CloudEvent({
        type: 'dev.knative.apiserver.ref.update',
        source: 'https://api',
        data: { apiVersion: 'v1', kind: 'Pod', name: 'by-ref', namespace: ns.name },
      });
      const res = await send(serveParts(podTerminated, parts, rt), httpMessage(ref));
      expect(res.status).toBe(200);
      const eligibleAt = new Date(pod.metadata!.creationTimestamp!).getTime() + AGE_S * 1000;
      expect(res.body).toMatchObject({ outcome: 'nothing-to-do', uid: pod.metadata!.uid, eligibleAt: new Date(eligibleAt).toISOString() });
      expect(res.body.scheduled).toBe(res.body.eligibleAt);
      expect(await dueEntries(env.DUE_NAMESPACE)).toEqual([pod.metadata!.uid]);
      const gone = await goneAt('by-ref', eligibleAt);
      expect(gone - eligibleAt).toBeLessThan(30_000);
      expect(requests.filter(isPodList)).toEqual([]);
    } finally {
      parts.stop();
    }
  }, 180_000);
});

describe('a sweep lists what it saw due soon', () => {
  it('(iv) a pod no event told anyone about: the sweep lists it, and a tick acts at its eligibleAt with no pod LIST of its own', async () => {
    // Only this test's namespace: the sweep must not touch other tests' pods in the shared cluster.
    const policy = policyDoc([{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: AGE_S, namespaces: { include: [ns.name] } } }], {
      evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
    });
    const env = { DUE_NAMESPACE: `${ns.name}-sweep` };
    const pod = await runPod(core(), ns.name, 'unseen', { exitCode: 1 });
    const eligibleAt = new Date(pod.metadata!.creationTimestamp!).getTime() + AGE_S * 1000;
    const sweeping = await countedRuntime(policy, env);
    const swept = await send(serveParts(sweep, await sweep.setup(sweeping.rt), sweeping.rt), pingRequest());
    expect(swept.status).toBe(200);
    expect(swept.body.summary).toMatchObject({ dueSoon: 1, dueListed: { added: 1, moved: 0, unchanged: 0, full: 0 } });
    expect(await exists(core(), ns.name, 'unseen'), 'too young for the sweep itself').toBeDefined();
    expect(await dueEntries(env.DUE_NAMESPACE)).toEqual([pod.metadata!.uid]);

    const ticking = await countedRuntime(policy, env);
    const parts = await podTerminated.setup(ticking.rt);
    try {
      const ticked = send(serveParts(podTerminated, parts, ticking.rt), pingRequest()).then((r) => r);
      const gone = await goneAt('unseen', eligibleAt);
      expect(gone - eligibleAt).toBeLessThan(30_000);
      expect((await ticked).body).toMatchObject({ outcome: 'ticked', due: 1, outcomes: { deleted: 1 }, removed: 1 });
      expect(ticking.requests.filter(isPodList)).toEqual([]);
    } finally {
      parts.stop();
    }
  }, 180_000);
});
