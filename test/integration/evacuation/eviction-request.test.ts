import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { CloudEvent } from 'cloudevents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpMessage } from '../../../shared/cloudevents/index.js';
import { ANNOTATIONS } from '../../../shared/evacuation/core/annotations.js';
import { evictionRequestName } from '../../../shared/evacuation/core/eviction-request.js';
import { responderMigrationName } from '../../../shared/evacuation/core/responder.js';
import { listSlots } from '../../../shared/evacuation/io/slot-store.js';
import { sharedAudit, sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { runPod } from '../functions/setup.js';
import { BEHAVIOUR, type MigrationController } from './controller.js';
import { IMPERATIVE_EVICTOR, startEvictionRequestStandIn, type EvictionRequestStandIn } from './eviction-request-standin.js';
import { annotate, core, createVm, custom, migrations, readPod, serveEvacuation, startKubevirtStandIns, tickUntil } from './fixtures.js';
import type { Webhook } from './webhook.js';

// Evacuation through KEP-4563's API on the real v1.37.2 API server (EvictionRequestAPI on):
// kube-tidy as requester (kube-tidy.dev/evacuation) and as responder (kube-tidy.dev/kubevirt).
// The evictionrequest-controller v1.37 lacks is played by the stand-in (its rules and sources
// are in eviction-request-standin.ts); the API server's validation of every write is real.

const ns = testNamespace('evac-er');
const L = { group: 'lifecycle.k8s.io', version: 'v1alpha1' } as const;
const RESPONDERS = [{ name: 'kube-tidy.dev/kubevirt', priority: 10000 }];
const AUTO = { EVACUATION_EVICTION_REQUESTS: 'auto', EVACUATION_HEARTBEAT_SECONDS: '1', EVACUATION_MIN_HEARTBEAT_SECONDS: '0.5' };
let standIn: EvictionRequestStandIn;
let webhook: Webhook;
let controller: MigrationController;

type Er = {
  metadata: { name: string };
  spec: { requester: string; intent: string; target: { pod: { name: string; uid: string } } };
  status?: { conditions?: { type: string; reason: string }[] };
};
type Ev = {
  metadata: { uid: string; name: string };
  spec: { target: { pod: { uid: string } } };
  status?: {
    conditions?: { type: string; reason: string }[];
    targetResponders?: { name: string; state: string }[];
    responders?: { name: string; heartbeatTime?: string; completionTime?: string; message?: string }[];
  };
};
const getEr = async (name: string) =>
  (await custom()
    .getNamespacedCustomObject({ ...L, plural: 'evictionrequests', namespace: ns.name, name })
    .catch(() => undefined)) as Er | undefined;
const evictionOf = async (uid: string) =>
  ((await custom().listNamespacedCustomObject({ ...L, plural: 'evictions', namespace: ns.name })) as { items: Ev[] }).items.find(
    (e) => e.spec.target.pod.uid === uid,
  );

beforeAll(async () => {
  ({ webhook, controller } = await startKubevirtStandIns(ns.name));
  standIn = startEvictionRequestStandIn(sharedCluster(), ns.name);
});
afterAll(async () => {
  await standIn?.stop();
  await controller?.stop();
  await webhook?.stop();
  expect(standIn.errors).toEqual([]); // the API server accepted every write the stand-in made
});

describe('evacuation through the EvictionRequest API (lifecycle.k8s.io/v1alpha1 served)', () => {
  it('a requested pod: kube-tidy creates one EvictionRequest with the pod uid, the default responder evicts it, TargetEvicted is read back', async () => {
    const fn = await serveEvacuation(ns.name, AUTO);
    expect((await fn.tick()).evictionRequests).toMatch(/served: evacuations ask through EvictionRequests \(requester kube-tidy.dev\/evacuation\)/);
    const pod = await runPod(core(), ns.name, 'plain', { annotations: { [ANNOTATIONS.request]: 'ops' } });
    const uid = pod.metadata!.uid!;
    standIn.pause();
    const started = await fn.event(pod);
    expect(started).toMatchObject({ outcome: 'started', why: expect.stringMatching(/EvictionRequest kube-tidy-evacuation-.* created/) });
    // Idempotent: a second pass (a second instance) meets AlreadyExists, one object.
    expect(await fn.tick()).toMatchObject({ results: [expect.objectContaining({ outcome: 'waiting', why: expect.stringMatching(/not yet observed/) })] });
    const er = await getEr(evictionRequestName(uid, 1));
    expect(er?.spec).toEqual({ target: { pod: { name: 'plain', uid } }, requester: 'kube-tidy.dev/evacuation', intent: 'Eviction' });
    expect((await readPod(ns.name, 'plain'))?.metadata?.annotations).toMatchObject({
      [ANNOTATIONS.state]: 'Started',
      [ANNOTATIONS.evictionRequest]: er!.metadata.name,
    });
    standIn.resume();
    await waitFor('the pod evicted by the default responder', async () => !(await readPod(ns.name, 'plain')));
    const ev = await waitFor('TargetEvicted', async () =>
      (await evictionOf(uid))?.status?.conditions?.some((c) => c.type === 'TargetEvicted') ? evictionOf(uid) : undefined,
    );
    expect(ev!.status!.targetResponders).toEqual([expect.objectContaining({ name: IMPERATIVE_EVICTOR, state: 'Completed' })]);
    await waitFor('the EvictionRequest to say TargetEvicted', async () =>
      (await getEr(er!.metadata.name))?.status?.conditions?.some((c) => c.type === 'TargetEvicted'),
    );
    // Nothing owns it, the pod is gone and its Eviction ended: the next tick deletes it (it stayed for good before).
    expect(await fn.tick()).toMatchObject({ summary: { freedSlots: 1, requestsCollected: 1 } });
    expect(await getEr(er!.metadata.name)).toBeUndefined();
  });

  it('kube-tidy.dev/kubevirt responds: migration started when Active, heartbeats, completion, pod evicted; one migration', async () => {
    const fn = await serveEvacuation(ns.name, AUTO);
    const pod = await createVm(ns.name, 'resp', { request: true, responders: RESPONDERS, behaviour: 'hold' });
    const uid = pod.metadata!.uid!;
    await fn.event(pod);
    const ev = await waitFor('the Eviction with kube-tidy Active', async () => {
      const e = await evictionOf(uid);
      return e?.status?.targetResponders?.find((t) => t.name === 'kube-tidy.dev/kubevirt')?.state === 'Active' ? e : undefined;
    });
    // The declared responder (priority 10000) goes before the default one (100).
    expect(ev.status!.targetResponders!.find((t) => t.name === IMPERATIVE_EVICTOR)?.state).toBe('Inactive');
    const first = await fn.tick();
    expect(first.responded).toContainEqual(expect.objectContaining({ step: 'start' }));
    const name = responderMigrationName(ev.metadata.uid);
    expect((await migrations(ns.name)).map((m) => m.metadata.name)).toContain(name);
    // Held in Pending: progress is reported with heartbeats while it runs.
    await tickUntil(fn, 'a heartbeat that reports the phase', async () =>
      /is Pending/.test((await evictionOf(uid))?.status?.responders?.find((r) => r.name === 'kube-tidy.dev/kubevirt')?.message ?? ''),
    );
    await custom().patchNamespacedCustomObject(
      {
        group: 'kubevirt.io',
        version: 'v1',
        plural: 'virtualmachineinstances',
        namespace: ns.name,
        name: 'resp',
        body: { metadata: { labels: { [BEHAVIOUR]: 'succeed' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await tickUntil(
      fn,
      'the Eviction ends TargetEvicted',
      async () => (await evictionOf(uid))?.status?.conditions?.some((c) => c.type === 'TargetEvicted') ?? false,
    );
    const end = (await evictionOf(uid))!;
    expect(end.status!.responders!.find((r) => r.name === 'kube-tidy.dev/kubevirt')).toMatchObject({
      completionTime: expect.any(String),
      message: expect.stringMatching(/succeeded/),
    });
    expect(end.status!.targetResponders!.find((t) => t.name === 'kube-tidy.dev/kubevirt')?.state).toBe('Completed');
    expect(controller.created.get('resp')).toEqual([name]);
    // The request is collected once the Eviction has ended, not while kube-tidy still responds.
    await tickUntil(fn, 'the EvictionRequest collected', async () => (await getEr(evictionRequestName(uid, 1))) === undefined);
  });

  it('removing the request withdraws the EvictionRequest: Cancelled in the result, the Eviction canceled, the responder aborts its migration', async () => {
    const fn = await serveEvacuation(ns.name, AUTO);
    const pod = await createVm(ns.name, 'cancel', { request: true, responders: RESPONDERS, behaviour: 'hold' });
    const uid = pod.metadata!.uid!;
    await fn.event(pod);
    await tickUntil(fn, 'the responder migration', async () => (controller.created.get('cancel') ?? []).length === 1);
    await annotate(ns.name, 'virt-launcher-cancel', { [ANNOTATIONS.request]: null });
    const r = await fn.event((await readPod(ns.name, 'virt-launcher-cancel'))!);
    expect(r).toMatchObject({ outcome: 'cancelled' });
    expect((await getEr(evictionRequestName(uid, 1)))?.spec.intent).toBe('Withdrawn');
    expect((await readPod(ns.name, 'virt-launcher-cancel'))?.metadata?.annotations?.[ANNOTATIONS.result]).toMatch(/^Cancelled at /);
    await waitFor('the Eviction canceled', async () =>
      (await evictionOf(uid))?.status?.conditions?.some((c) => c.type === 'Failed' && c.reason === 'CanceledDueToNoRequesters'),
    );
    await tickUntil(fn, 'the migration aborted (deleted)', async () => (await migrations(ns.name)).every((m) => m.spec.vmiName !== 'cancel'));
    expect(await readPod(ns.name, 'virt-launcher-cancel')).toBeDefined(); // not evicted
    // Let the test migration controller's held run end now instead of at its 90 s bound.
    await custom().patchNamespacedCustomObject(
      {
        group: 'kubevirt.io',
        version: 'v1',
        plural: 'virtualmachineinstances',
        namespace: ns.name,
        name: 'cancel',
        body: { metadata: { labels: { [BEHAVIOUR]: 'fail' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  });

  it('no controller acts on it within the bound (the stand-in paused): the request withdrawn, the pod evicted directly, once, the answer says why', async () => {
    standIn.pause();
    try {
      const fn = await serveEvacuation(ns.name, { ...AUTO, EVACUATION_EVICTION_REQUEST_ANSWER_SECONDS: '1' });
      const pod = await runPod(core(), ns.name, 'unseen', { annotations: { [ANNOTATIONS.request]: 'ops' } });
      const request = evictionRequestName(pod.metadata!.uid!, 1);
      expect(await fn.event(pod)).toMatchObject({ outcome: 'started' });
      const seen: { pod: string; outcome: string; why: string }[] = [];
      await waitFor(
        'the pod evicted directly',
        async () => {
          seen.push(...(await fn.tick()).results.filter((r) => r.pod === `${ns.name}/unseen`));
          return !(await readPod(ns.name, 'unseen'));
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      const fell = seen.filter((r) => /no EvictionRequest controller answered/.test(r.why));
      expect(fell).toEqual([
        expect.objectContaining({
          outcome: 'started',
          why: expect.stringMatching(
            new RegExp(
              `^no EvictionRequest controller answered within 1 s; withdrew EvictionRequest ${request} and evicted directly through the Eviction API \\(.*\\); evicted: the pod is terminating$`,
            ),
          ),
        }),
      ]);
      expect((await getEr(request))?.spec.intent).toBe('Withdrawn');
      expect(await evictionOf(pod.metadata!.uid!)).toBeUndefined();
    } finally {
      standIn.resume();
    }
  });

  it('a controller that answers within the bound (a responder Active) is waited for past it: no fallback, the request path completes', async () => {
    const fn = await serveEvacuation(ns.name, { ...AUTO, EVACUATION_EVICTION_REQUEST_ANSWER_SECONDS: '3' });
    const mark = sharedAudit().mark();
    const pod = await createVm(ns.name, 'answered', { request: true, responders: RESPONDERS, behaviour: 'hold' });
    const uid = pod.metadata!.uid!;
    expect(await fn.event(pod)).toMatchObject({ outcome: 'started' });
    await tickUntil(fn, 'the responder migration', async () => (controller.created.get('answered') ?? []).length === 1);
    // Held past the bound, ticking: the requester side waits on.
    const whys: string[] = [];
    const until = Date.now() + 5_000;
    while (Date.now() < until) {
      whys.push(...(await fn.tick()).results.filter((r) => r.pod === `${ns.name}/virt-launcher-answered`).map((r) => r.why));
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(whys.length).toBeGreaterThan(0);
    expect(whys.filter((w) => !/responder kube-tidy.dev\/kubevirt is Active/.test(w))).toEqual([]);
    expect((await readPod(ns.name, 'virt-launcher-answered'))?.metadata?.annotations).toMatchObject({
      [ANNOTATIONS.state]: 'Started',
      [ANNOTATIONS.evictionRequest]: evictionRequestName(uid, 1),
    });
    expect((await readPod(ns.name, 'virt-launcher-answered'))?.metadata?.annotations?.[ANNOTATIONS.fallback]).toBeUndefined();
    expect((await getEr(evictionRequestName(uid, 1)))?.spec.intent).toBe('Eviction');
    await custom().patchNamespacedCustomObject(
      {
        group: 'kubevirt.io',
        version: 'v1',
        plural: 'virtualmachineinstances',
        namespace: ns.name,
        name: 'answered',
        body: { metadata: { labels: { [BEHAVIOUR]: 'succeed' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await tickUntil(
      fn,
      'the Eviction ends TargetEvicted',
      async () => (await evictionOf(uid))?.status?.conditions?.some((c) => c.type === 'TargetEvicted') ?? false,
    );
    // Never withdrawn (kube-tidy's only patch of a request is its withdrawal; the stand-in writes status).
    const patched = (await sharedAudit().settledSince(mark)).filter(
      (w) => w.resource === 'evictionrequests' && w.namespace === ns.name && w.name === evictionRequestName(uid, 1) && w.verb === 'patch' && !w.subresource,
    );
    expect(patched).toEqual([]);
    expect(controller.created.get('answered')).toHaveLength(1); // the responder's migration only
    await tickUntil(fn, 'the EvictionRequest collected', async () => (await getEr(evictionRequestName(uid, 1))) === undefined);
  });

  it('an Eviction event moves the responder without a tick; the stored Eviction decides, not the event', async () => {
    const fn = await serveEvacuation(ns.name, AUTO);
    const evictionEvent = async (name: string, claimed: object = {}) => {
      const data = { apiVersion: 'lifecycle.k8s.io/v1alpha1', kind: 'Eviction', metadata: { name, namespace: ns.name, uid: name }, ...claimed };
      const event = new CloudEvent({
        type: 'dev.knative.apiserver.resource.update',
        source: 'https://127.0.0.1',
        subject: `/apis/lifecycle.k8s.io/v1alpha1/namespaces/${ns.name}/evictions/${name}`,
        data,
      });
      const res = await fn.raw(httpMessage(event));
      expect(res.status).toBe(200);
      return res.body as { outcome: string; why: string; responded: { step: string }[] };
    };
    // An Eviction that names only the default responder: an event claiming kube-tidy changes nothing.
    const plain = await runPod(core(), ns.name, 'plain-event', { annotations: { [ANNOTATIONS.request]: 'ops' } });
    await fn.event(plain);
    const other = await waitFor("the plain pod's Eviction", () => evictionOf(plain.metadata!.uid!));
    const forged = { status: { targetResponders: [{ name: 'kube-tidy.dev/kubevirt', priority: 10000, state: 'Active' }] } };
    expect(await evictionEvent(other.metadata.name, forged)).toMatchObject({
      outcome: 'nothing-to-do',
      why: 'kube-tidy.dev/kubevirt is not among its responders',
    });
    expect(await evictionEvent('no-such-eviction', forged)).toMatchObject({ outcome: 'nothing-to-do', why: 'the Eviction is gone' });

    const pod = await createVm(ns.name, 'evented', { request: true, responders: RESPONDERS });
    await fn.event(pod);
    const ev = await waitFor('the Eviction with kube-tidy Active', async () => {
      const e = await evictionOf(pod.metadata!.uid!);
      return e?.status?.targetResponders?.find((t) => t.name === 'kube-tidy.dev/kubevirt')?.state === 'Active' ? e : undefined;
    });
    expect(await evictionEvent(ev.metadata.name)).toMatchObject({ outcome: 'responded', responded: [expect.objectContaining({ step: 'start' })] });
    expect(controller.created.get('evented')).toEqual([responderMigrationName(ev.metadata.uid)]);
    // Events alone carry it to completion (no tick is sent): the migration ends, the pod goes.
    await waitFor('completion reported on events alone', async () => {
      await evictionEvent(ev.metadata.name);
      return (await evictionOf(pod.metadata!.uid!))?.status?.responders?.find((r) => r.name === 'kube-tidy.dev/kubevirt')?.completionTime !== undefined;
    });
    expect(controller.created.get('evented')).toHaveLength(1);
    // The requester's side ends on ticks as usual, giving back both evacuation slots.
    await tickUntil(fn, 'both evacuations ended, their slots free', async () => (await listSlots(core(), ns.name)).length === 0);
  });

  it('the API server itself holds the heartbeat deadline: an Active responder cannot be interrupted early', async () => {
    const pod = await createVm(ns.name, 'early', { request: true, responders: RESPONDERS, behaviour: 'hold' });
    const fn = await serveEvacuation(ns.name, AUTO);
    await fn.event(pod);
    // Its responders are written on its status after it is created: on a busy machine, later.
    const ev = await waitFor('the Eviction with an Active responder', async () => {
      const e = await evictionOf(pod.metadata!.uid!);
      return e?.status?.targetResponders?.some((t) => t.state === 'Active') ? e : undefined;
    });
    const full = (await custom().getNamespacedCustomObject({
      ...L,
      plural: 'evictions',
      namespace: ns.name,
      name: (ev as unknown as { metadata: { name: string } }).metadata.name,
    })) as Ev & { metadata: { name: string } };
    const targets = full.status!.targetResponders!.map((t) =>
      t.state === 'Active' ? { ...t, state: 'Interrupted' } : t.name === IMPERATIVE_EVICTOR ? { ...t, state: 'Active' } : t,
    );
    const refused = await custom()
      .replaceNamespacedCustomObjectStatus({
        ...L,
        plural: 'evictions',
        namespace: ns.name,
        name: full.metadata.name,
        body: { ...full, status: { ...full.status, targetResponders: targets } },
      })
      .then(
        () => 'accepted',
        (e: { body?: string }) => String(e.body),
      );
    expect(refused).toMatch(/must stay Active because the responder is in progress/);
    await annotate(ns.name, 'virt-launcher-early', { [ANNOTATIONS.request]: null });
    await fn.event((await readPod(ns.name, 'virt-launcher-early'))!);
  });
});
