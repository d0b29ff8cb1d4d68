import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { EvacuationChange } from '../../../shared/notify/types.js';
import { outSchemas } from '../../fixtures/events/out-schemas.js';
import { receiver, type Receiver } from '../../fixtures/events/receiver.js';
import { ANNOTATIONS } from '../../../shared/evacuation/core/annotations.js';
import { listSlots } from '../../../shared/evacuation/io/slot-store.js';
import { testNamespace, waitFor } from '../../harness/index.js';
import { MARK_KEPT, type MigrationController } from './controller.js';
import { annotate, core, createVm, migrations, putLedgerSlot, readPod, serveEvacuation, startKubevirtStandIns, tickUntil } from './fixtures.js';
import type { Webhook } from './webhook.js';

// The evacuation function against the real control plane: KubeVirt's CRDs, a real admission
// webhook for pods/eviction answering as KubeVirt does, and a test migration controller.

const ns = testNamespace('evac');
let webhook: Webhook;
let controller: MigrationController;
let fn: Awaited<ReturnType<typeof serveEvacuation>>;

// Every state change out as a CloudEvent (issue 26): a real receiver for the whole file.
let sink: Receiver;
const schemas = outSchemas();

beforeAll(async () => {
  ({ webhook, controller } = await startKubevirtStandIns(ns.name));
  sink = await receiver();
  fn = await serveEvacuation(ns.name, { EVENTS_SINK: sink.url });
});
afterAll(async () => {
  sink?.close();
  await controller?.stop();
  await webhook?.stop();
});
// Every end gives its slot back (a tick backs up the pod-deleted events): nothing may leak
// from one test into the next.
afterEach(async () => {
  await fn.tick();
  expect(await listSlots(core(), ns.name)).toEqual([]);
});

const launcher = (vm: string) => `virt-launcher-${vm}`;
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
/** A finalizer of the test's own: it keeps a deleted pod terminating until the test removes it. */
const HOLD = 'test.kube-tidy.dev/hold';
const ofVm = async (vm: string) => (await migrations(ns.name)).filter((m) => m.spec.vmiName === vm);
const annotations = async (vm: string) => (await readPod(ns.name, launcher(vm)))?.metadata?.annotations ?? {};
const markersCleared = (a: Record<string, string>) =>
  [
    ANNOTATIONS.state,
    ANNOTATIONS.attempt,
    ANNOTATIONS.startedAt,
    ANNOTATIONS.deadline,
    ANNOTATIONS.migration,
    ANNOTATIONS.inProgress,
    ANNOTATIONS.request,
  ].every((k) => a[k] === undefined);

describe('evacuation of a KubeVirt launcher pod', () => {
  it('starts through the Eviction API (429 "Eviction triggered evacuation"), records it on the pod, and ends when the migration moved the VM', async () => {
    const pod = await createVm(ns.name, 'ok', { request: true });
    const answer = await fn.event(pod);
    expect(answer).toMatchObject({ outcome: 'started', attempt: 1 });
    expect(webhook.answers).toContainEqual([launcher('ok'), `Eviction triggered evacuation of VMI "${ns.name}/ok"`]);
    const a = await annotations('ok');
    expect(a).toMatchObject({ [ANNOTATIONS.state]: 'Started', [ANNOTATIONS.attempt]: '1', [ANNOTATIONS.inProgress]: 'kube-tidy' });
    expect(Date.parse(a[ANNOTATIONS.deadline]!) - Date.parse(a[ANNOTATIONS.startedAt]!)).toBe(600_000);
    await tickUntil(fn, 'the launcher pod gone', async () => !(await readPod(ns.name, launcher('ok'))));
    expect((await ofVm('ok')).map((m) => m.status?.phase)).toEqual(['Succeeded']);
    // The pod's delete event ends it and gives the slot back (or a tick does, if it went first).
    expect(await fn.event(pod, 'delete')).toMatchObject({ outcome: 'succeeded' });
    expect(await listSlots(core(), ns.name)).toEqual([]);
  });

  it('creates the migration itself with the migration method, named from the pod uid and attempt', async () => {
    const direct = await serveEvacuation(ns.name, { EVENTS_SINK: sink.url, EVACUATION_KUBEVIRT_METHOD: 'migration' });
    const pod = await createVm(ns.name, 'direct', { request: true });
    expect(await direct.event(pod)).toMatchObject({ outcome: 'started', migration: `kube-tidy-${pod.metadata!.uid}-1` });
    await tickUntil(direct, 'the launcher pod gone', async () => !(await readPod(ns.name, launcher('direct'))));
    expect((await ofVm('direct')).map((m) => [m.metadata.name, m.status?.phase])).toEqual([[`kube-tidy-${pod.metadata!.uid}-1`, 'Succeeded']]);
  });

  it('retries a failed migration after a backoff and succeeds on the second attempt', async () => {
    const pod = await createVm(ns.name, 'flaky', { request: true, behaviour: 'fail-1' });
    await fn.event(pod);
    const seen = new Set<string>();
    await tickUntil(fn, 'the launcher pod gone', async () => {
      seen.add((await annotations('flaky'))[ANNOTATIONS.state] ?? '');
      return !(await readPod(ns.name, launcher('flaky')));
    });
    expect(seen).toContain('Backoff');
    expect((await ofVm('flaky')).map((m) => m.status?.phase).sort()).toEqual(['Failed', 'Succeeded']);
    // Each state change went out as a CloudEvent, in order, valid against its schema.
    const changes = () =>
      sink.events.filter((e) => e.type === 'dev.kube-tidy.evacuation.changed.v1' && e.subject === `namespaces/${ns.name}/pods/${launcher('flaky')}`);
    // The pod is gone: a tick (or its delete event) ends the evacuation by giving its slot back, and says so.
    await fn.tick();
    await waitFor('the evacuation’s end as an event', async () => changes().some((e) => (e.data as EvacuationChange).to === 'Idle') || undefined);
    const steps = changes().map((e) => e.data as EvacuationChange);
    expect(steps.map((c) => `${c.from}>${c.to}`)).toEqual(['Idle>Started', 'Started>Backoff', 'Backoff>Started', 'Started>Idle']);
    // The end says which attempt ended, whether a pass wrote it on the pod or the slot given back told it.
    expect(steps.map((c) => c.attempt)).toEqual([1, 1, 2, 2]);
    expect(steps.at(-1)!.reason).toMatch(/^Succeeded/);
    for (const e of changes()) expect(schemas.check(e.dataschema!, e.data)).toEqual([]);
  });

  // Issue 33: a pass that meets the pod terminating (KubeVirt deleted it; kwok has not removed
  // it yet, which under load can last) ends the evacuation without writing on the pod. A finalizer
  // holds the pod in that state here, so the pass meets it every time, not only under load.
  it('tells the end of an evacuation whose pod is terminating, once, when its slot is given back', async () => {
    const pod = await createVm(ns.name, 'leaving', { request: true, behaviour: 'hang' });
    expect(await fn.event(pod)).toMatchObject({ outcome: 'started' });
    await core().patchNamespacedPod({ namespace: ns.name, name: launcher('leaving'), body: { metadata: { finalizers: [HOLD] } } }, merge);
    await core().deleteNamespacedPod({ namespace: ns.name, name: launcher('leaving') });
    try {
      const r = await fn.tick();
      expect(r.results.find((x) => x.pod === `${ns.name}/${launcher('leaving')}`)).toMatchObject({ outcome: 'succeeded', why: 'the pod is terminating' });
      expect(await listSlots(core(), ns.name)).toEqual([]);
      const changes = () =>
        sink.events.filter((e) => e.type === 'dev.kube-tidy.evacuation.changed.v1' && e.subject === `namespaces/${ns.name}/pods/${launcher('leaving')}`);
      await waitFor('the evacuation’s end as an event', async () => changes().some((e) => (e.data as EvacuationChange).to === 'Idle') || undefined);
      // Another pass over the terminating pod, and its delete event, find no slot: said once.
      await fn.tick();
      expect(await fn.event(pod, 'delete')).toMatchObject({ outcome: 'succeeded' });
      await fn.flushEvents(10_000);
      const steps = changes().map((e) => e.data as EvacuationChange);
      expect(steps.map((c) => `${c.from}>${c.to}`)).toEqual(['Idle>Started', 'Started>Idle']);
      expect(steps.map((c) => c.attempt)).toEqual([1, 1]);
      expect(steps.at(-1)!.reason).toMatch(/^Succeeded/);
    } finally {
      await core().patchNamespacedPod({ namespace: ns.name, name: launcher('leaving'), body: { metadata: { finalizers: null } } }, merge);
    }
  });

  // A slot past the grace whose pod went while no pass or delete event saw it (a live migration
  // can take longer than the grace): freed as stale, and its evacuation's end told as well.
  it('tells the end when a tick frees the slot of a pod that went after the slot’s grace', async () => {
    const uid = '0d0e0a0d-0000-4000-8000-000000000033';
    const slot = { pod: `${ns.name}/${launcher('long-gone')}`, node: 'kwok-node-0', at: Date.now() - 3_600_000, attempt: 3 };
    await putLedgerSlot(ns.name, uid, slot);
    await fn.tick();
    expect(await listSlots(core(), ns.name)).toEqual([]);
    const ends = () =>
      sink.events.filter((e) => e.type === 'dev.kube-tidy.evacuation.changed.v1' && e.subject === `namespaces/${slot.pod.replace('/', '/pods/')}`);
    await waitFor('the evacuation’s end as an event', async () => ends().length > 0 || undefined);
    expect(ends().map((e) => e.data)).toEqual([
      expect.objectContaining({ uid, from: 'Started', to: 'Idle', attempt: 3, reason: 'Succeeded: the pod is gone' }),
    ]);
  });

  it('reports a migration that fails on every attempt, clears its markers and leaves the pod', async () => {
    const limited = await serveEvacuation(ns.name, { EVENTS_SINK: sink.url, EVACUATION_MAX_ATTEMPTS: '2' });
    const pod = await createVm(ns.name, 'broken', { request: true, behaviour: 'fail' });
    await limited.event(pod);
    await tickUntil(limited, 'a Failed result on the pod', async () => (await annotations('broken'))[ANNOTATIONS.result]?.startsWith('Failed') ?? false);
    const a = await annotations('broken');
    expect(a[ANNOTATIONS.result]).toMatch(/failed; 2 of 2 attempts used/);
    expect(markersCleared(a)).toBe(true);
    expect((await ofVm('broken')).map((m) => m.status?.phase)).toEqual(['Failed', 'Failed']);
    const events = await core().listNamespacedEvent({ namespace: ns.name, fieldSelector: `involvedObject.uid=${pod.metadata!.uid}` });
    expect(events.items.map((e) => e.reason)).toContain('EvacuationFailed');
  });

  it('aborts a migration that does not finish by the deadline: deletes it, clears the markers, reports TimedOut', async () => {
    const quick = await serveEvacuation(ns.name, { EVENTS_SINK: sink.url, EVACUATION_TIMEOUT_SECONDS: '3' });
    const pod = await createVm(ns.name, 'stuck', { request: true, behaviour: 'hang' });
    await quick.event(pod);
    await waitFor('the migration Running', async () => (await ofVm('stuck'))[0]?.status?.phase === 'Running');
    await tickUntil(quick, 'a TimedOut result', async () => (await annotations('stuck'))[ANNOTATIONS.result]?.startsWith('TimedOut') ?? false, 30_000);
    expect(await ofVm('stuck')).toEqual([]);
    expect(controller.created.get('stuck')).toHaveLength(1);
    expect(markersCleared(await annotations('stuck'))).toBe(true);
  });

  it('says so when KubeVirt keeps the VMI marked for evacuation after the abort (kubevirt#9585), in the result and a Warning Event', async () => {
    const quick = await serveEvacuation(ns.name, { EVENTS_SINK: sink.url, EVACUATION_TIMEOUT_SECONDS: '3' });
    const pod = await createVm(ns.name, 'marked', { request: true, behaviour: 'hang', labels: { [MARK_KEPT]: 'kept' } });
    await quick.event(pod);
    await waitFor('the migration Running', async () => (await ofVm('marked'))[0]?.status?.phase === 'Running');
    await tickUntil(quick, 'a TimedOut result', async () => (await annotations('marked'))[ANNOTATIONS.result]?.startsWith('TimedOut') ?? false, 30_000);
    const a = await annotations('marked');
    expect(markersCleared(a)).toBe(true);
    expect(a[ANNOTATIONS.result]).toMatch(
      /KubeVirt still marks VMI marked for evacuation from \S+ and keeps creating migrations .*virtctl evacuate-cancel vmi marked/,
    );
    const events = await core().listNamespacedEvent({ namespace: ns.name, fieldSelector: `involvedObject.uid=${pod.metadata!.uid}` });
    expect(events.items.find((e) => e.reason === 'EvacuationTimedOut')).toMatchObject({
      type: 'Warning',
      message: expect.stringMatching(/virtctl evacuate-cancel/),
    });
  });

  it('cancels when the request annotation is withdrawn: the migration is deleted and the markers cleared', async () => {
    const pod = await createVm(ns.name, 'withdrawn', { request: true, behaviour: 'hang' });
    await fn.event(pod);
    await waitFor('the migration', async () => (await ofVm('withdrawn')).length === 1);
    const changed = await annotate(ns.name, launcher('withdrawn'), { [ANNOTATIONS.request]: null });
    expect(await fn.event(changed)).toMatchObject({ outcome: 'cancelled' });
    expect(await ofVm('withdrawn')).toEqual([]);
    const a = await annotations('withdrawn');
    expect(markersCleared(a)).toBe(true);
    expect(a[ANNOTATIONS.result]).toMatch(/^Cancelled/);
  });
});
