import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../../shared/evacuation/core/annotations.js';
import { evictionRequestName } from '../../../shared/evacuation/core/eviction-request.js';
import { listSlots } from '../../../shared/evacuation/io/slot-store.js';
import { sharedAudit, testNamespace, waitFor, type AuditMark } from '../../harness/index.js';
import { BEHAVIOUR, type MigrationController } from './controller.js';
import { core, createVm, custom, readPod, serveEvacuation, startKubevirtStandIns, tickUntil } from './fixtures.js';
import type { Webhook } from './webhook.js';

// The EvictionRequest path with the group served (EvictionRequestAPI on, the real v1.37.2 API
// server) and nothing acting on kube-tidy's requests: v1.37 ships no evictionrequest controller,
// and this namespace runs no stand-in for one. After EVACUATION_EVICTION_REQUEST_ANSWER_SECONDS
// the attempt withdraws its request and takes the direct path (for a KubeVirt launcher pod with
// the default method: the Eviction API, answered by the KubeVirt webhook stand-in), once, and
// says why. The answered case (a controller there) is in eviction-request.test.ts.

const ns = testNamespace('evac-er-fallback');
const L = { group: 'lifecycle.k8s.io', version: 'v1alpha1' } as const;
const QUIET = { EVACUATION_EVICTION_REQUESTS: 'auto', EVACUATION_EVICTION_REQUEST_ANSWER_SECONDS: '3' };
const FELL_BACK =
  /^no EvictionRequest controller answered within 3 s; withdrew EvictionRequest kube-tidy-evacuation-\S+-1 and evicted directly through the Eviction API$/;
let webhook: Webhook;
let controller: MigrationController;

type Er = { spec: { intent: string } };
const getEr = async (name: string) =>
  (await custom()
    .getNamespacedCustomObject({ ...L, plural: 'evictionrequests', namespace: ns.name, name })
    .catch(() => undefined)) as Er | undefined;
const evictions = async () => ((await custom().listNamespacedCustomObject({ ...L, plural: 'evictions', namespace: ns.name })) as { items: unknown[] }).items;
const annotationsOf = async (pod: string) => (await readPod(ns.name, pod))?.metadata?.annotations ?? {};
const behave = (vm: string, behaviour: string) =>
  custom().patchNamespacedCustomObject(
    {
      group: 'kubevirt.io',
      version: 'v1',
      plural: 'virtualmachineinstances',
      namespace: ns.name,
      name: vm,
      body: { metadata: { labels: { [BEHAVIOUR]: behaviour } } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );

/** The writes to EvictionRequests in the namespace the API server accepted since `mark`, by verb. */
async function requestWrites(mark: AuditMark): Promise<string[]> {
  return (await sharedAudit().settledSince(mark))
    .filter((w) => w.resource === 'evictionrequests' && w.namespace === ns.name && !w.dryRun && w.code < 300)
    .map((w) => w.verb);
}

beforeAll(async () => {
  ({ webhook, controller } = await startKubevirtStandIns(ns.name));
});
afterAll(async () => {
  await controller?.stop();
  await webhook?.stop();
});

describe('an EvictionRequest nobody answers (the group served, no evictionrequest controller)', () => {
  it('after the bounded wait the attempt withdraws its request and evicts directly, once; the state, the answer and the result say why', async () => {
    const fn = await serveEvacuation(ns.name, { ...QUIET, EVACUATION_MAX_ATTEMPTS: '1' });
    const mark = sharedAudit().mark();
    const pod = await createVm(ns.name, 'quiet', { request: true, behaviour: 'hold' });
    const uid = pod.metadata!.uid!;
    const request = evictionRequestName(uid, 1);
    expect(await fn.event(pod)).toMatchObject({ outcome: 'started', why: expect.stringMatching(/EvictionRequest kube-tidy-evacuation-.* created/) });
    // Within the bound it waits for an answer.
    expect(await fn.tick()).toMatchObject({ results: [expect.objectContaining({ outcome: 'waiting', why: expect.stringMatching(/not yet observed/) })] });

    const seen: { outcome: string; why: string }[] = [];
    await waitFor(
      'the fallback',
      async () => {
        seen.push(...(await fn.tick()).results);
        return (await annotationsOf('virt-launcher-quiet'))[ANNOTATIONS.fallback] !== undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const a = await annotationsOf('virt-launcher-quiet');
    expect(a[ANNOTATIONS.fallback]).toMatch(FELL_BACK);
    expect(a).toMatchObject({ [ANNOTATIONS.state]: 'Started', [ANNOTATIONS.attempt]: '1' });
    expect(a[ANNOTATIONS.evictionRequest]).toBeUndefined();
    // The answer of the pass that fell back says why and what the direct path did.
    const fell = seen.filter((r) => r.why.includes('no EvictionRequest controller answered'));
    expect(fell).toEqual([
      expect.objectContaining({
        outcome: 'started',
        why: expect.stringContaining(`${a[ANNOTATIONS.fallback]} (EvictionRequest ${request} (not yet observed by an evictionrequest controller) is new); `),
      }),
    ]);
    expect(fell[0]!.why).toMatch(/Eviction triggered evacuation/);
    expect(webhook.answers).toContainEqual(['virt-launcher-quiet', `Eviction triggered evacuation of VMI "${ns.name}/quiet"`]);
    expect((await getEr(request))?.spec.intent).toBe('Withdrawn');
    expect(await evictions()).toEqual([]);

    // Later ticks, each past the bound again, follow the direct path: no second fallback.
    for (let i = 0; i < 4; i++) {
      const r = await fn.tick();
      expect(r.results).toEqual([expect.objectContaining({ outcome: 'waiting', why: expect.stringMatching(/migration kubevirt-evacuation-\S+ is/) })]);
      await new Promise((res) => setTimeout(res, 400));
    }
    expect((await annotationsOf('virt-launcher-quiet'))[ANNOTATIONS.fallback]).toBe(a[ANNOTATIONS.fallback]);
    expect(await requestWrites(mark)).toEqual(['create', 'patch']); // asked once, withdrawn once
    expect(controller.created.get('quiet')).toHaveLength(1);

    // It ends (here the migration fails, the only attempt): the result says it fell back.
    await behave('quiet', 'fail');
    await tickUntil(fn, 'the evacuation ended', async () => (await annotationsOf('virt-launcher-quiet'))[ANNOTATIONS.result] !== undefined);
    const end = await annotationsOf('virt-launcher-quiet');
    expect(end[ANNOTATIONS.result]).toMatch(
      /^Failed at \S+: migration kubevirt-evacuation-\S+ failed; 1 of 1 attempts used; no EvictionRequest controller answered within 3 s; withdrew EvictionRequest/,
    );
    expect(end[ANNOTATIONS.fallback]).toBeUndefined(); // cleared with the rest of the state
    expect(await listSlots(core(), ns.name)).toEqual([]);
  });

  it('a pod that fell back is never asked through an EvictionRequest again: not by another instance, nor on its next attempt', async () => {
    const first = await serveEvacuation(ns.name, QUIET);
    const mark = sharedAudit().mark();
    const pod = await createVm(ns.name, 'again', { request: true, behaviour: 'fail-1' });
    const uid = pod.metadata!.uid!;
    expect(await first.event(pod)).toMatchObject({ outcome: 'started' });
    await tickUntil(first, 'the fallback', async () => (await annotationsOf('virt-launcher-again'))[ANNOTATIONS.fallback] !== undefined, 30_000);

    // Another instance (a restart) carries it on: attempt 1's migration fails, the backoff keeps
    // the reason, attempt 2 evicts directly again, its migration succeeds and the pod goes.
    const second = await serveEvacuation(ns.name, QUIET);
    const states: string[] = [];
    await tickUntil(second, 'the launcher pod gone', async () => {
      const a = await annotationsOf('virt-launcher-again');
      if (a[ANNOTATIONS.state])
        states.push(
          `${a[ANNOTATIONS.state]} ${a[ANNOTATIONS.attempt]} ${a[ANNOTATIONS.fallback] ? 'fallback' : ''} ${a[ANNOTATIONS.evictionRequest] ?? ''}`.trim(),
        );
      return !(await readPod(ns.name, 'virt-launcher-again'));
    });
    expect(states.length).toBeGreaterThan(0);
    expect(states.filter((s) => !s.endsWith('fallback'))).toEqual([]); // never back on a request
    expect(controller.created.get('again')).toHaveLength(2);
    expect(webhook.answers.filter(([p]) => p === 'virt-launcher-again')).toHaveLength(2);
    expect(await getEr(evictionRequestName(uid, 2))).toBeUndefined();
    expect((await requestWrites(mark)).filter((w) => w === 'create')).toHaveLength(1); // attempt 1's only
    // The withdrawn request of the gone pod is collected; the slot is free.
    await tickUntil(second, 'the request collected', async () => (await getEr(evictionRequestName(uid, 1))) === undefined);
    expect(await listSlots(core(), ns.name)).toEqual([]);
  });
});
