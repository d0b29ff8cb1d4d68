import { CoreV1Api, PatchStrategy, PolicyV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { CloudEvent } from 'cloudevents';
import { httpMessage, type HttpMessage, type HttpMode } from '../../../shared/cloudevents/index.js';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { policyDoc } from '../../fixtures/policy.js';
import { exists, knativeRequest, runPod, runtimeFor, send, serve, tidyEvents } from './setup.js';
import { modeOf, TRUST_MODES } from './trust-modes.js';

// podTerminated over HTTP against the real cluster: what a bridge delivers, what the
// cluster looks like afterwards.

const ns = testNamespace('fn-pod');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);

// Profile one: Failed pods exiting 3 or killed by a signal go at once (no age: the event
// path reacts as soon as a pod fails). Profile two: running pods labelled expire=now.
const failedAtOnce = policyDoc([{ name: 'PodLifeTime', args: { states: ['Failed'], exitCodes: [3, '128-255'] } }], {
  evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
});
const expireNow = policyDoc([{ name: 'PodLifeTime', args: { states: ['Running'], labelSelector: { matchLabels: { expire: 'now' } } } }], {
  evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] }, labelSelector: { matchLabels: { expire: 'now' } } },
});
const POLICY = { ...failedAtOnce, profiles: [...(failedAtOnce.profiles as object[]), { ...(expireNow.profiles as object[])[0], name: 'expire' }] };

let agent: ReturnType<typeof serve>;
beforeAll(async () => {
  // Each test reads its own bare pod's Event: with Event series on (the default), the bare pods
  // of one namespace after the first would be counted in the namespace's series instead
  // (event-series.test.ts); 0 turns series off, one Event per pod.
  agent = serve(podTerminated, await runtimeFor(POLICY, { EVENT_SERIES_WINDOW_SECONDS: '0' }));
});

describe.each<HttpMode>(['binary', 'structured'])('podTerminated in %s mode', (mode) => {
  it('deletes a Failed pod with a selected exit code and records an Event saying why', async () => {
    const pod = await runPod(core(), ns.name, `exit3-${mode}`, { exitCode: 3 });
    const res = await send(agent, knativeRequest(mode, 'update', pod));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'deleted', result: { strategy: 'PodLifeTime', action: 'delete' } });
    await waitFor('pod gone', async () => !(await exists(core(), ns.name, pod.metadata!.name!)));
    const events = await tidyEvents(ns.name, pod.metadata!.uid!);
    expect(events.map((e) => [e.reason, e.action, e.type])).toEqual([['Deleted', 'Delete', 'Normal']]);
    expect(events[0]?.note).toContain('container main exited 3');
  });

  it('keeps a Failed pod whose exit code the policy does not select', async () => {
    const pod = await runPod(core(), ns.name, `exit1-${mode}`, { exitCode: 1 });
    const res = await send(agent, knativeRequest(mode, 'update', pod));
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe('nothing-to-do');
    expect(await exists(core(), ns.name, pod.metadata!.name!)).toBeDefined();
  });
});

describe('podTerminated in Reference mode (the default of ApiServerSource)', () => {
  it('reads the pod the reference names, then decides', async () => {
    await runPod(core(), ns.name, 'by-ref', { exitCode: 3 });
    const res = await send(
      agent,
      httpMessage(
        new CloudEvent({
          type: 'dev.knative.apiserver.ref.update',
          source: 'https://api',
          data: { apiVersion: 'v1', kind: 'Pod', name: 'by-ref', namespace: ns.name },
        }),
      ),
    );
    expect(res.body.outcome).toBe('deleted');
    await waitFor('pod gone', async () => !(await exists(core(), ns.name, 'by-ref')));
  });

  it('answers nothing-to-do for a reference to a pod that no longer exists', async () => {
    const res = await send(
      agent,
      httpMessage(
        new CloudEvent({
          type: 'dev.knative.apiserver.ref.update',
          source: 'https://api',
          data: { apiVersion: 'v1', kind: 'Pod', name: 'never-was', namespace: ns.name },
        }),
      ),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'nothing-to-do', why: 'the pod no longer exists' });
  });
});

// The hostile cases in both of podTerminated's ways to take an event (trust-modes.ts): read
// first, and the named source's Resource-mode pod as the read. In both the same event changes
// nothing the stored pod would not: a repeat finds it gone, a stale copy's write is refused by
// its preconditions (409) and the stored pod decides.
describe.each(TRUST_MODES)('podTerminated safety (%s)', (mode) => {
  const m = mode === 'trusted' ? 't' : 'r';
  let headers: Record<string, string>;
  let modeEnv: Record<string, string>;
  let tidy: ReturnType<typeof serve>;
  beforeAll(async () => {
    ({ env: modeEnv, headers } = await modeOf(mode, ns.name));
    tidy = serve(podTerminated, await runtimeFor(POLICY, modeEnv));
  });
  const as = (req: HttpMessage): HttpMessage => ({ ...req, headers: { ...req.headers, ...headers } });

  it('the same event delivered 10 times deletes once', async () => {
    const pod = await runPod(core(), ns.name, `repeat-${m}`, { exitCode: 137 });
    const req = as(knativeRequest('binary', 'update', pod));
    const outcomes: string[] = [];
    for (let i = 0; i < 10; i++) outcomes.push((await send(tidy, req)).body.outcome);
    expect(outcomes[0]).toBe('deleted');
    expect(outcomes.slice(1).every((o) => o === 'gone')).toBe(true);
    expect(await tidyEvents(ns.name, pod.metadata!.uid!)).toHaveLength(1);
  });

  it('a stale event for a pod recreated under the same name deletes nothing', async () => {
    const old = await runPod(core(), ns.name, `reborn-${m}`, { exitCode: 3 });
    await core().deleteNamespacedPod({ namespace: ns.name, name: `reborn-${m}`, gracePeriodSeconds: 0 });
    await waitFor('old pod gone', async () => !(await exists(core(), ns.name, `reborn-${m}`)));
    const fresh = await runPod(core(), ns.name, `reborn-${m}`, { exitCode: 3 });
    const res = await send(tidy, as(knativeRequest('binary', 'update', old)));
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe('stale');
    expect((await exists(core(), ns.name, `reborn-${m}`))?.metadata?.uid).toBe(fresh.metadata!.uid);
  });

  it('a running pod under a PodDisruptionBudget is reported blocked and never deleted', async () => {
    // The evict annotation lets this bare pod past the evictor, so only the budget stands in the way.
    const app = `guarded-${m}`;
    const pod = await runPod(core(), ns.name, app, {
      labels: { expire: 'now', app },
      annotations: { 'descheduler.alpha.kubernetes.io/evict': 'true' },
    });
    await sharedCluster()
      .kubeConfig()
      .makeApiClient(PolicyV1Api)
      .createNamespacedPodDisruptionBudget({
        namespace: ns.name,
        body: { metadata: { name: app }, spec: { minAvailable: 1, selector: { matchLabels: { app } } } },
      });
    // The disruption controller must have computed the budget's status for it to refuse.
    await waitFor('PDB observed', async () => {
      const pdb = await sharedCluster().kubeConfig().makeApiClient(PolicyV1Api).readNamespacedPodDisruptionBudget({ namespace: ns.name, name: app });
      return pdb.status?.observedGeneration === pdb.metadata?.generation && pdb.status?.currentHealthy === 1 && pdb.status?.disruptionsAllowed === 0;
    });
    const res = await send(tidy, as(knativeRequest('binary', 'update', pod)));
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe('blocked');
    expect(res.body.result.message).toContain('disruption budget');
    const still = await exists(core(), ns.name, app);
    expect(still?.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('a late event about a running pod that has changed since evicts nothing', async () => {
    const annotations = { 'descheduler.alpha.kubernetes.io/evict': 'true' };
    const old = await runPod(core(), ns.name, `changed-${m}`, { labels: { expire: 'now' }, annotations });
    // The owner opts the pod out after the event was sent: the event's copy still matches.
    await core().patchNamespacedPod(
      { namespace: ns.name, name: `changed-${m}`, body: [{ op: 'remove', path: '/metadata/labels/expire' }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    const res = await send(tidy, as(knativeRequest('binary', 'update', old)));
    expect(res.body.outcome).toBe('stale');
    expect((await exists(core(), ns.name, `changed-${m}`))?.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('never touches a pod in a protected namespace', async () => {
    const pod = await runPod(core(), ns.name, `protected-${m}`, { exitCode: 3 });
    const guarded = serve(podTerminated, await runtimeFor(POLICY, { ...modeEnv, PROTECTED_NAMESPACES: `kube-system,${ns.name}` }));
    const res = await send(guarded, as(knativeRequest('binary', 'update', pod)));
    expect(res.body).toMatchObject({ outcome: 'kept', kept: [{ reason: `namespace ${ns.name} is protected` }] });
    expect(await exists(core(), ns.name, `protected-${m}`)).toBeDefined();
  });

  it('in DRY_RUN it goes through the API server dry run and deletes nothing', async () => {
    const pod = await runPod(core(), ns.name, `dry-${m}`, { exitCode: 3 });
    const dry = serve(podTerminated, await runtimeFor(POLICY, { ...modeEnv, DRY_RUN: 'true' }));
    const res = await send(dry, as(knativeRequest('binary', 'update', pod)));
    expect(res.body).toMatchObject({ outcome: 'deleted', result: { dryRun: true } });
    expect(await exists(core(), ns.name, `dry-${m}`)).toBeDefined();
  });
});

describe('podTerminated and time', () => {
  it('answers when a pod a time-based rule will select becomes eligible, since no later event comes for it', async () => {
    const policy = policyDoc([{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 600 } }], {
      evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
    });
    const waiting = serve(podTerminated, await runtimeFor(policy));
    const pod = await runPod(core(), ns.name, 'too-young', { exitCode: 1 });
    const res = await send(waiting, knativeRequest('binary', 'update', pod));
    expect(res.status).toBe(200);
    const created = new Date(pod.metadata!.creationTimestamp!).getTime();
    expect(res.body).toMatchObject({ outcome: 'nothing-to-do', eligibleAt: new Date(created + 600_000).toISOString() });
  });
});
