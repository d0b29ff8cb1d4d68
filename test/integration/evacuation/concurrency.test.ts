import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../../shared/evacuation/core/annotations.js';
import { listSlots } from '../../../shared/evacuation/io/slot-store.js';
import { testNamespace, waitFor } from '../../harness/index.js';
import type { MigrationController } from './controller.js';
import { annotate, core, createVm, kwokNodes, migrations, readPod, serveEvacuation, startKubevirtStandIns } from './fixtures.js';
import type { Webhook } from './webhook.js';

// Limits and races: slots per cluster and per node, two instances on one pod, the descheduler's
// request-evict-only contract, and the EvictionRequest API's absence.

const ns = testNamespace('evac-limits');
let webhook: Webhook;
let controller: MigrationController;

beforeAll(async () => {
  ({ webhook, controller } = await startKubevirtStandIns(ns.name));
});
afterAll(async () => {
  await controller?.stop();
  await webhook?.stop();
});

const started = async (prefix: string) =>
  (await core().listNamespacedPod({ namespace: ns.name })).items.filter(
    (p) => p.metadata!.name!.startsWith(`virt-launcher-${prefix}`) && p.metadata!.annotations?.[ANNOTATIONS.state] === 'Started',
  ).length;
const withdrawAll = async (prefix: string, fn: Awaited<ReturnType<typeof serveEvacuation>>) => {
  for (const p of (await core().listNamespacedPod({ namespace: ns.name })).items.filter((x) => x.metadata!.name!.startsWith(`virt-launcher-${prefix}`))) {
    await fn.event(await annotate(ns.name, p.metadata!.name!, { [ANNOTATIONS.request]: null }));
  }
  expect(await listSlots(core(), ns.name)).toEqual([]);
};

describe('limits on evacuations in flight', () => {
  it('6 requests with a cluster limit of 5: 5 start, the 6th is queued until one ends', async () => {
    const fn = await serveEvacuation(ns.name, { EVACUATION_MAX_PER_CLUSTER: '5', EVACUATION_MAX_PER_NODE: '10' });
    const pods = [];
    for (let i = 0; i < 6; i++) pods.push(await createVm(ns.name, `c${i}`, { request: true, behaviour: 'hang' }));
    // All six at once, as six events delivered concurrently would arrive.
    const answers = await Promise.all(pods.map((p) => fn.event(p)));
    expect(answers.map((a) => a.outcome).sort()).toEqual(['queued', 'started', 'started', 'started', 'started', 'started']);
    expect(await started('c')).toBe(5);
    expect(await listSlots(core(), ns.name)).toHaveLength(5);
    const queued = pods[answers.findIndex((a) => a.outcome === 'queued')]!;
    const other = pods.find((p) => p !== queued)!;
    await fn.event(await annotate(ns.name, other.metadata!.name!, { [ANNOTATIONS.request]: null }));
    const tick = await fn.tick();
    expect(tick.results.find((r) => r.pod === `${ns.name}/${queued.metadata!.name}`)).toMatchObject({ outcome: 'started' });
    expect(await started('c')).toBe(5);
    await withdrawAll('c', fn);
  });

  it('3 requests on one node with a node limit of 2: 2 start, the other node is not held back', async () => {
    const fn = await serveEvacuation(ns.name, { EVACUATION_MAX_PER_CLUSTER: '5', EVACUATION_MAX_PER_NODE: '2' });
    const [a, b] = await kwokNodes();
    const pods = [];
    for (let i = 0; i < 3; i++) pods.push(await createVm(ns.name, `n${i}`, { request: true, behaviour: 'hang', node: a! }));
    pods.push(await createVm(ns.name, 'n-other', { request: true, behaviour: 'hang', node: b! }));
    const answers = await Promise.all(pods.map((p) => fn.event(p)));
    expect(
      answers
        .slice(0, 3)
        .map((x) => x.outcome)
        .sort(),
    ).toEqual(['queued', 'started', 'started']);
    expect(answers[3]).toMatchObject({ outcome: 'started' });
    await withdrawAll('n', fn);
  });
});

describe('two instances handling the same pod at once', () => {
  for (const method of ['eviction', 'migration']) {
    it(`start exactly one migration (${method} method)`, async () => {
      const one = await serveEvacuation(ns.name, { EVACUATION_KUBEVIRT_METHOD: method });
      const two = await serveEvacuation(ns.name, { EVACUATION_KUBEVIRT_METHOD: method });
      for (const i of [0, 1, 2]) {
        const vm = `twice-${method}-${i}`;
        const pod = await createVm(ns.name, vm, { request: true });
        const answers = await Promise.all([one.event(pod), two.event(pod)]);
        expect(answers.map((x) => x.outcome)).toContain('started');
        await waitFor(`${vm} evacuated`, async () => !(await readPod(ns.name, `virt-launcher-${vm}`)) || ((await one.tick()) && false));
        expect(controller.created.get(vm), `migrations of ${vm}`).toHaveLength(1);
        expect((await migrations(ns.name)).filter((m) => m.spec.vmiName === vm).map((m) => m.status?.phase)).toEqual(['Succeeded']);
      }
      await one.tick();
    });
  }
});

describe('requests', () => {
  it('a request-evict-only pod a strategy decides to evict is evacuated, the strategy named as requester', async () => {
    const fn = await serveEvacuation(ns.name);
    const pod = await createVm(ns.name, 'by-strategy', { behaviour: 'hang' });
    expect(await fn.event(pod)).toMatchObject({ outcome: 'nothing-to-do' }); // the policy does not select it yet
    const selected = await core().patchNamespacedPod({
      namespace: ns.name,
      name: pod.metadata!.name!,
      body: [{ op: 'add', path: '/metadata/labels/evacuate', value: 'now' }],
    });
    expect(await fn.event(selected)).toMatchObject({ outcome: 'started' });
    expect((await readPod(ns.name, pod.metadata!.name!))?.metadata?.annotations?.[ANNOTATIONS.request]).toBe('strategy:PodLifeTime');
    await withdrawAll('by-strategy', fn);
  });

  it('an event claiming a request-evict-only pod is selected starts nothing when the stored pod is not', async () => {
    const fn = await serveEvacuation(ns.name);
    const pod = await createVm(ns.name, 'forged-strategy', { behaviour: 'hang' });
    // The copy says what the policy selects (label evacuate=now); the stored pod has no such label.
    const forged = { ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata!.labels, evacuate: 'now' } } };
    expect(await fn.event(forged)).toMatchObject({ outcome: 'nothing-to-do' });
    const stored = await readPod(ns.name, pod.metadata!.name!);
    expect(stored?.metadata?.annotations?.[ANNOTATIONS.request]).toBeUndefined();
    expect(stored?.metadata?.annotations?.[ANNOTATIONS.state]).toBeUndefined();
  });
});
