// Issue 33 for evacuation, with the slots in the brakes' ledger since issue 34: the slots found not
// as kube-tidy wrote them. A ledger that cannot be read, or was deleted or emptied while
// evacuations run, is rebuilt blind (as the brakes rebuild it): its slots are unknown, never
// free, so no new evacuation starts until a tick, which knows what is in flight from the pods'
// Started state, writes their slots again; then the limits hold as before. An entry of the
// previous release's ConfigMap (kube-tidy-evacuations) that cannot be read is carried as a held
// slot until a tick frees it or writes it again from its pod. Said once (log, metric, Event).
import { EventsV1Api, type V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../../shared/evacuation/core/annotations.js';
import { LEGACY_SLOTS_NAME } from '../../../shared/evacuation/io/legacy-slots.js';
import { SLOT_STORE_NAME, listSlots } from '../../../shared/evacuation/io/slot-store.js';
import { metricsExposition } from '../../../shared/metrics/exposition.js';
import type { MetricsRecorder } from '../../../shared/metrics/recorder.js';
import { testNamespace } from '../../harness/index.js';
import { annotate, core, createVm, kc, readPod, serveEvacuation, useKubevirtStandIns, tickUntil } from './fixtures.js';

const ns = testNamespace('evac-state');

useKubevirtStandIns(ns);

const uid = (p: V1Pod) => p.metadata!.uid!;
const state = async (name: string) => (await readPod(ns.name, name))?.metadata?.annotations?.[ANNOTATIONS.state];
const readCm = (name: string) =>
  core()
    .readNamespacedConfigMap({ namespace: ns.name, name })
    .catch(() => undefined);
/** Puts the ledger's text as another tool would (a botched edit, a bad restore). */
async function writeLedger(data: Record<string, string>): Promise<void> {
  const cm = await readCm(SLOT_STORE_NAME);
  const body = { metadata: { name: SLOT_STORE_NAME, ...(cm ? { resourceVersion: cm.metadata!.resourceVersion } : {}) }, data };
  if (cm) await core().replaceNamespacedConfigMap({ namespace: ns.name, name: SLOT_STORE_NAME, body });
  else await core().createNamespacedConfigMap({ namespace: ns.name, body });
}
const events = async (reason: string) =>
  (await kc().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns.name })).items.filter((e) => e.reason === reason);
async function unreadableTotal(metrics: MetricsRecorder, found: string): Promise<number> {
  const line = (await metricsExposition(metrics)).body
    .split('\n')
    .find((l) => l.startsWith('kube_tidy_state_unreadable_total{') && l.includes('store="evacuation-slots"') && l.includes(`found="${found}"`));
  return line ? Number(line.split(' ').pop()) : 0;
}
async function withdraw(fn: Awaited<ReturnType<typeof serveEvacuation>>, ...names: string[]): Promise<void> {
  for (const n of names) await fn.event(await annotate(ns.name, n, { [ANNOTATIONS.request]: null }));
}

describe('the evacuation slots found not as kube-tidy wrote them', () => {
  it("an entry of the previous release's ConfigMap that cannot be read holds a slot (the cluster-wide limit counts it) until a tick finds its pod not in flight and frees it", async () => {
    const idle = await createVm(ns.name, 'idle', { behaviour: 'hang' });
    // A truncated entry, keyed by a pod that runs no evacuation, left by the previous release's store.
    await core().createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: LEGACY_SLOTS_NAME }, data: { [uid(idle)]: '{"pod":"' + ns.name + '/virt-launcher-idle","no' } },
    });
    const fn = await serveEvacuation(ns.name, { EVACUATION_MAX_PER_CLUSTER: '1', EVACUATION_MAX_PER_NODE: '10' });
    const before = await unreadableTotal(fn.metrics, 'unreadable');
    const earlier = new Set((await events('EvacuationSlotsMended')).map((e) => e.metadata!.name));
    const asked = await createVm(ns.name, 'asked', { request: true, behaviour: 'hang' });
    expect(await fn.event(asked)).toMatchObject({ outcome: 'queued', why: expect.stringContaining('1 of them unreadable') });
    expect(await state('virt-launcher-asked')).toBeUndefined();
    expect(await readCm(LEGACY_SLOTS_NAME)).toBeUndefined();

    await tickUntil(fn, 'the queued pod started once the unreadable entry is freed', async () => (await state('virt-launcher-asked')) === 'Started');
    expect((await listSlots(core(), ns.name)).map((s) => s.uid)).toEqual([uid(asked)]);
    const notes = (await events('EvacuationSlotsMended')).filter((e) => !earlier.has(e.metadata!.name)).map((e) => e.note);
    expect(notes).toEqual([expect.stringMatching(new RegExp(`1 unreadable entries \\(${uid(idle)}\\) freed`))]);
    expect(await unreadableTotal(fn.metrics, 'unreadable')).toBe(before + 1);
    await withdraw(fn, 'virt-launcher-asked');
  });

  it('a ledger that cannot be read while an evacuation runs: rebuilt blind and said; no new one starts until a tick writes the running one back', async () => {
    const fn = await serveEvacuation(ns.name, { EVACUATION_MAX_PER_CLUSTER: '2', EVACUATION_MAX_PER_NODE: '10' });
    const running = await createVm(ns.name, 'running', { request: true, behaviour: 'hang' });
    expect(await fn.event(running)).toMatchObject({ outcome: 'started' });
    const rebuilt = (await events('LedgerRebuilt')).length;
    await writeLedger({ 'ledger.json': '{"counts":{},"slots":{"' + uid(running) + '":' });
    const next = await createVm(ns.name, 'next', { request: true, behaviour: 'hang' });
    expect(await fn.event(next)).toMatchObject({
      outcome: 'queued',
      why: expect.stringMatching(/ledger was unreadable .*evacuations in flight are unknown until a tick/),
    });
    expect(await events('LedgerRebuilt')).toHaveLength(rebuilt + 1);
    await tickUntil(fn, 'the next pod started once the running one is written back', async () => (await state('virt-launcher-next')) === 'Started');
    expect((await listSlots(core(), ns.name)).map((s) => s.pod).sort()).toEqual([`${ns.name}/virt-launcher-next`, `${ns.name}/virt-launcher-running`]);
    expect(await listSlots(core(), ns.name)).toContainEqual({
      uid: uid(running),
      pod: `${ns.name}/virt-launcher-running`,
      node: running.spec!.nodeName!,
      at: expect.any(Number),
      attempt: 1,
    });
    await withdraw(fn, 'virt-launcher-next', 'virt-launcher-running');
  });

  for (const how of ['deleted', 'emptied'] as const)
    it(`${how} while evacuations run: the tick writes their slots again from the Started pods, said once; new ones wait within the limits`, async () => {
      const fn = await serveEvacuation(ns.name, { EVACUATION_MAX_PER_CLUSTER: '2', EVACUATION_MAX_PER_NODE: '10' });
      const a = await createVm(ns.name, `${how}-a`, { request: true, behaviour: 'hang' });
      const b = await createVm(ns.name, `${how}-b`, { request: true, behaviour: 'hang' });
      expect((await Promise.all([fn.event(a), fn.event(b)])).map((x) => x.outcome)).toEqual(['started', 'started']);
      const earlier = new Set((await events('EvacuationSlotsMended')).map((e) => e.metadata!.name));
      const before = await unreadableTotal(fn.metrics, 'deleted');
      if (how === 'deleted') await core().deleteNamespacedConfigMap({ namespace: ns.name, name: SLOT_STORE_NAME });
      else await writeLedger({});

      await fn.tick();
      expect((await listSlots(core(), ns.name)).map((s) => s.pod).sort()).toEqual([`${ns.name}/virt-launcher-${how}-a`, `${ns.name}/virt-launcher-${how}-b`]);
      const c = await createVm(ns.name, `${how}-c`, { request: true, behaviour: 'hang' });
      expect(await fn.event(c)).toMatchObject({ outcome: 'queued', why: expect.stringContaining('2 evacuations in flight in the cluster (limit 2)') });
      await fn.tick();
      const notes = (await events('EvacuationSlotsMended')).filter((e) => !earlier.has(e.metadata!.name)).map((e) => e.note);
      // Deleted: this process had read it. Emptied (no data at all): kube-tidy never writes a
      // ledger without its key, so it is unreadable (configmap-store.ts dataOf). Either way it
      // is rebuilt blind and the tick writes the slots back.
      const was = how === 'deleted' ? 'it was deleted' : 'it was unreadable (ledger.json: missing)';
      expect(notes).toEqual([expect.stringContaining(`${was} and rebuilt blind, and held no slot for 2 evacuations in flight`)]);
      // Either way the two slots are counted as lost ones (found="deleted"), each written back.
      expect(await unreadableTotal(fn.metrics, 'deleted')).toBe(before + 2);
      await withdraw(fn, `virt-launcher-${how}-c`, `virt-launcher-${how}-a`, `virt-launcher-${how}-b`);
      expect(await listSlots(core(), ns.name)).toEqual([]);
    });
});
