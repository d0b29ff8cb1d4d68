// The event path of cleanup beyond pods on the real control plane (objectUpdated, served as
// functions-framework serves it, fed the ApiServerSource's CloudEvents).
//
// The oracle is kube-controller-manager's own TTL-after-finished controller (on by default in
// the harness: --controllers=*,-nodelifecycle): two twin Jobs finish together; one carries
// ttlSecondsAfterFinished: 8, the other none, and kube-tidy's rule `kind: Job, minAge: 8s,
// mode: delete` selects only the second (by label, so kube-tidy can never be the one that
// removes the oracle's Job). Fed the second's update when it completes, objectUpdated answers
// when time alone brings it in and its timer acts then: both Jobs go at their stored finish +
// 8 s, neither before it, and their removals lie within BOUND_MS of each other beyond the
// difference of their stored finish times (see BOUND_MS); their pods go with them.
//
// An instance that listed a Job and then died is covered by another instance's tick reading the
// objects' due list, at the Job's time. A Reference-mode event (Knative's other mode) is decided
// on the Job read by name.
//
// Hostile: a condition forged in an event's copy but not stored, a repeated event and a stale
// one (the Job recreated under the same name, past minAge), and a protected namespace's Job:
// each changes nothing.
import { BatchV1Api, CoreV1Api, EventsV1Api, type V1Job } from '@kubernetes/client-node';
import { CloudEvent } from 'cloudevents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { objectUpdated, type ObjectUpdatedParts } from '../../../functions/object-updated.js';
import { httpMessage, toApiServerSourceEvent } from '../../../shared/cloudevents/index.js';
import type { KubeObject } from '../../../shared/cloudevents/index.js';
import type { Runtime } from '../../../shared/runtime/runtime.js';
import { policyDoc } from '../../fixtures/policy.js';
import { EXIT_CODE_ANNOTATION, sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { serveParts } from '../due/setup.js';
import { pingRequest, runtimeFor, send } from '../functions/setup.js';

const ns = testNamespace('objects-event');
const guarded = testNamespace('objects-guarded');
const kc = () => sharedCluster().kubeConfig();
const batch = () => kc().makeApiClient(BatchV1Api);
const core = () => kc().makeApiClient(CoreV1Api);

const MIN_AGE_S = 8;
/**
 * How far apart the twins' removals may lie beyond the difference of their stored finish times
 * (both stored in whole seconds, from which both sides count). kube-tidy's side: a timer armed
 * to the millisecond, then a read of the namespace, the brakes' ledger and the delete (tens of
 * ms here); the TTL controller's: its workqueue's AddAfter to the same second, a GET and its
 * delete. 2 s holds both with room for a loaded machine (2 cores shared with other tests) and
 * this test's 100 ms polling; a removal off by a whole timer's mechanism (the sweep's 15 min,
 * a tick's 10 s poll) is far outside it.
 */
const BOUND_MS = 2_000;

const jobRule = (namespaces: string[]) => ({
  name: 'finished-jobs',
  kind: 'Job',
  minAge: `${MIN_AGE_S}s`,
  mode: 'delete',
  namespaces: { include: namespaces },
  // Never the oracle's Job: only Jobs that say they have no TTL of their own.
  labelSelector: { matchLabels: { 'kube-tidy.dev/ttl': 'none' } },
});

// A pod strategy that selects nothing here: the policy is about its kubeTidy.objects rules.
const policy = (namespaces: string[]) =>
  policyDoc([{ name: 'RemoveFailedPods', args: { namespaces: { include: ['nothing-here'] } } }], { top: { kubeTidy: { objects: [jobRule(namespaces)] } } });

/** A Job whose one pod kwok ends with exit code 0 (the harness's stage), so the Job controller writes Complete. */
async function finishingJob(namespace: string, name: string, opts: { ttl?: number; finishes?: boolean } = {}): Promise<void> {
  await batch().createNamespacedJob({
    namespace,
    body: {
      metadata: { name, labels: opts.ttl === undefined ? { 'kube-tidy.dev/ttl': 'none' } : {} },
      spec: {
        ...(opts.ttl === undefined ? {} : { ttlSecondsAfterFinished: opts.ttl }),
        template: {
          metadata: { annotations: opts.finishes === false ? {} : { [EXIT_CODE_ANNOTATION]: '0' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
        },
      },
    },
  });
}

const completeSince = (j: V1Job): number | undefined => {
  const c = j.status?.conditions?.find((x) => x.type === 'Complete' && x.status === 'True');
  return c?.lastTransitionTime ? new Date(c.lastTransitionTime).getTime() : undefined;
};

/** The stored Job once it is Complete. */
const completed = (namespace: string, name: string) =>
  waitFor(
    `${namespace}/${name} Complete`,
    async () => {
      const j = await batch().readNamespacedJob({ namespace, name });
      return completeSince(j) !== undefined ? j : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );

/** Until the Job's Complete has held a second longer than minAge: a rule selects it now. */
const pastMinAge = (j: V1Job) =>
  waitFor(`${j.metadata?.name} past minAge`, async () => (Date.now() > completeSince(j)! + (MIN_AGE_S + 1) * 1000 ? true : undefined), {
    timeoutMs: 30_000,
    intervalMs: 200,
  });

/** The Job as stored, or undefined when it is gone. */
const stored = (namespace: string, name: string) =>
  batch()
    .readNamespacedJob({ namespace, name })
    .catch(() => undefined);

/** The ApiServerSource's update event for `job` (Resource mode: the whole object), binary mode. */
function updateEvent(job: V1Job, verb: 'update' | 'add' = 'update') {
  const object = JSON.parse(JSON.stringify({ ...job, apiVersion: 'batch/v1', kind: 'Job' })) as KubeObject;
  return httpMessage(toApiServerSourceEvent(verb, object, kc().getCurrentCluster()!.server), 'binary');
}

/** When each of `names` began to go (a deletionTimestamp, or gone), polled every 100 ms. */
async function removalTimes(namespace: string, names: string[], timeoutMs: number): Promise<Record<string, number>> {
  const at: Record<string, number> = {};
  await waitFor(
    `${names.join(', ')} removed`,
    async () => {
      for (const name of names) {
        if (at[name] !== undefined) continue;
        const j = await stored(namespace, name);
        if (!j || j.metadata?.deletionTimestamp) at[name] = Date.now();
      }
      return names.every((n) => at[n] !== undefined) || undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
  return at;
}

const podsOf = async (namespace: string, job: string) => (await core().listNamespacedPod({ namespace, labelSelector: `job-name=${job}` })).items.length;

/** The Events kube-tidy recorded about an object (its uid): one per removal. */
const deletedEvents = async (namespace: string, uid: string) =>
  (await kc().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace })).items.filter(
    (e) => e.regarding?.uid === uid && e.reason === 'Deleted' && e.reportingController?.includes('kube-tidy'),
  );

/** Each runtime's settings: the guarded namespace protected, and a due list of this file's own. */
const env = () => ({ PROTECTED_NAMESPACES: `kube-system,${guarded.name}`, DRY_RUN: 'false', DUE_NAMESPACE: `${ns.name}-due` });

/** The uids in the Job due list's four shards, as stored. */
async function listedJobs(): Promise<string[]> {
  const uids: string[] = [];
  for (let s = 0; s < 4; s++) {
    const cm = await core()
      .readNamespacedConfigMap({ namespace: `${ns.name}-due`, name: `kube-tidy-objects-due-job-${s}` })
      .catch(() => undefined);
    uids.push(...Object.keys(cm?.data ?? {}));
  }
  return uids;
}

describe('objectUpdated: acting at eligibility, with the Job TTL controller as the oracle', () => {
  let rt: Runtime;
  let parts: ObjectUpdatedParts;
  let agent: ReturnType<typeof serveParts>;
  beforeAll(async () => {
    rt = await runtimeFor(policy([ns.name, guarded.name]), env());
    parts = await objectUpdated.setup(rt);
    agent = serveParts(objectUpdated, parts, rt);
  });
  afterAll(() => parts.stop());

  it('removes a finished Job at its stored finish + minAge, together with its TTL twin, and their pods with them', async () => {
    await Promise.all([finishingJob(ns.name, 'twin-ttl', { ttl: MIN_AGE_S }), finishingJob(ns.name, 'twin-tidy')]);
    const [ttl, tidy] = await Promise.all([completed(ns.name, 'twin-ttl'), completed(ns.name, 'twin-tidy')]);
    const due = { ttl: completeSince(ttl)! + MIN_AGE_S * 1000, tidy: completeSince(tidy)! + MIN_AGE_S * 1000 };

    // The event the Job controller's write produced; sent twice (a bridge's retry): one timer, one removal.
    const first = await send(agent, updateEvent(tidy));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ outcome: 'nothing-to-do', scheduled: new Date(due.tidy).toISOString() });
    const again = await send(agent, updateEvent(tidy));
    expect(again.body).toMatchObject({ outcome: 'nothing-to-do', scheduled: new Date(due.tidy).toISOString() });
    expect(parts.due.timers.size).toBe(1);
    expect(await listedJobs(), 'listed, so another instance can act if this one dies').toEqual([tidy.metadata!.uid]);

    const at = await removalTimes(ns.name, ['twin-ttl', 'twin-tidy'], 60_000);
    // Never before its time (a 250 ms allowance for this test's clock against the API server's).
    expect(at['twin-tidy']!, 'kube-tidy acted before the stored finish + minAge').toBeGreaterThanOrEqual(due.tidy - 250);
    expect(at['twin-ttl']!).toBeGreaterThanOrEqual(due.ttl - 250);
    const apart = Math.abs(at['twin-tidy']! - due.tidy - (at['twin-ttl']! - due.ttl));
    expect(apart, `removals ${JSON.stringify(at)} for dues ${JSON.stringify(due)}`).toBeLessThanOrEqual(BOUND_MS);
    expect(Math.abs(at['twin-tidy']! - at['twin-ttl']!)).toBeLessThanOrEqual(BOUND_MS + Math.abs(due.tidy - due.ttl));

    // Their pods go with them (kube-tidy's Background delete; the TTL controller's own).
    await waitFor(
      'the twins and their pods gone',
      async () =>
        !(await stored(ns.name, 'twin-ttl')) &&
        !(await stored(ns.name, 'twin-tidy')) &&
        (await podsOf(ns.name, 'twin-tidy')) + (await podsOf(ns.name, 'twin-ttl')) === 0
          ? true
          : undefined,
      { timeoutMs: 60_000 },
    );
    expect(await deletedEvents(ns.name, tidy.metadata!.uid!)).toHaveLength(1);
    expect(parts.due.timers.size).toBe(0);
    expect(await listedJobs(), 'its entry taken out once it served').toEqual([]);
  }, 180_000);

  it("an instance that died after listing the Job is covered by another instance's tick, at the Job's time", async () => {
    const first = { rt: await runtimeFor(policy([ns.name]), env()) };
    const firstParts = await objectUpdated.setup(first.rt);
    await finishingJob(ns.name, 'orphaned');
    const job = await completed(ns.name, 'orphaned');
    const due = completeSince(job)! + MIN_AGE_S * 1000;
    const res = await send(serveParts(objectUpdated, firstParts, first.rt), updateEvent(job));
    expect(res.body).toMatchObject({ outcome: 'nothing-to-do', scheduled: new Date(due).toISOString() });
    // The first instance goes away (its timers with it); its entry stays in the cluster.
    firstParts.stop();
    expect(await listedJobs()).toEqual([job.metadata!.uid]);
    const second = await runtimeFor(policy([ns.name]), env());
    const secondParts = await objectUpdated.setup(second);
    try {
      // Sent now (supertest sends on then): the tick holds until the Job's time and acts then.
      const ticking = send(serveParts(objectUpdated, secondParts, second), pingRequest('object-updated')).then((r) => r);
      const at = await removalTimes(ns.name, ['orphaned'], 60_000);
      const tick = await ticking;
      expect(tick.status, JSON.stringify(tick.body)).toBe(200);
      expect(tick.body).toMatchObject({ outcome: 'ticked', due: 1, outcomes: { deleted: 1 }, removed: 1 });
      expect(at['orphaned']!).toBeGreaterThanOrEqual(due - 250);
      expect(at['orphaned']! - due).toBeLessThanOrEqual(BOUND_MS);
      expect(await listedJobs()).toEqual([]);
    } finally {
      secondParts.stop();
    }
  }, 120_000);

  it('a Reference-mode event (no object, no uid) is decided on the Job read by name, and timed by its stored uid', async () => {
    await finishingJob(ns.name, 'by-ref');
    const job = await completed(ns.name, 'by-ref');
    const ref = new CloudEvent({
      type: 'dev.knative.apiserver.ref.update',
      source: 'https://api',
      data: { apiVersion: 'batch/v1', kind: 'Job', name: 'by-ref', namespace: ns.name },
    });
    const res = await send(agent, httpMessage(ref));
    const due = completeSince(job)! + MIN_AGE_S * 1000;
    expect(res.body).toMatchObject({ outcome: 'nothing-to-do', uid: job.metadata!.uid, scheduled: new Date(due).toISOString() });
    const at = await removalTimes(ns.name, ['by-ref'], 60_000);
    expect(at['by-ref']!).toBeGreaterThanOrEqual(due - 250);
    expect(at['by-ref']! - due).toBeLessThanOrEqual(BOUND_MS);
  }, 120_000);

  it('a condition forged in the event but not stored changes nothing', async () => {
    await finishingJob(ns.name, 'running', { finishes: false });
    const job = await waitFor('running has a pod', async () => ((await podsOf(ns.name, 'running')) > 0 ? stored(ns.name, 'running') : undefined), {
      timeoutMs: 60_000,
    });
    const forged: V1Job = {
      ...job!,
      status: { ...job!.status, conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: new Date('2020-01-01T00:00:00Z') }] },
    };
    const res = await send(agent, updateEvent(forged));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'nothing-to-do' });
    expect(res.body.scheduled).toBeUndefined();
    expect(parts.due.timers.at(job!.metadata!.uid!)).toBeUndefined();
    const after = await stored(ns.name, 'running');
    expect(after?.metadata?.uid).toBe(job!.metadata!.uid);
    expect(after?.metadata?.deletionTimestamp).toBeUndefined();
  }, 120_000);

  it('a stale event (its Job deleted and recreated under the same name, the new one past minAge) changes nothing', async () => {
    await finishingJob(ns.name, 'again');
    const old = await completed(ns.name, 'again');
    await batch().deleteNamespacedJob({ namespace: ns.name, name: 'again', propagationPolicy: 'Background' });
    await waitFor('again gone', async () => ((await stored(ns.name, 'again')) ? undefined : true), { timeoutMs: 60_000 });
    await finishingJob(ns.name, 'again');
    const fresh = await completed(ns.name, 'again');
    expect(fresh.metadata!.uid).not.toBe(old.metadata!.uid);
    // The new Job is selectable now: only the event's uid keeps it out.
    await pastMinAge(fresh);
    const res = await send(agent, updateEvent(old));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'nothing-to-do' });
    const after = await stored(ns.name, 'again');
    expect(after?.metadata?.uid).toBe(fresh.metadata!.uid);
    expect(after?.metadata?.deletionTimestamp).toBeUndefined();
    expect(parts.due.timers.size).toBe(0);
  }, 180_000);

  it("a protected namespace's finished Job is kept and said so, whatever the rule includes", async () => {
    await finishingJob(guarded.name, 'guarded');
    const job = await completed(guarded.name, 'guarded');
    await pastMinAge(job);
    const res = await send(agent, updateEvent(job));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'kept' });
    // A function's answer names the setting its operator wrote: the environment variable.
    expect(res.body.why).toMatch(/protected namespace \(PROTECTED_NAMESPACES\)/);
    expect(parts.due.timers.size).toBe(0);
    const after = await stored(guarded.name, 'guarded');
    expect(after?.metadata?.deletionTimestamp).toBeUndefined();
    expect(await deletedEvents(guarded.name, job.metadata!.uid!)).toHaveLength(0);
  }, 120_000);
});
