// Issue 33 for evacuation: the slots' ConfigMap (kube-tidy-evacuations) found not as kube-tidy
// wrote it. An entry that cannot be read holds its slot (it may be an evacuation in flight)
// until a tick, which knows what is in flight from the pods' Started state, frees it or writes
// it again from its pod; a ConfigMap deleted or emptied while evacuations run is written again
// by the tick from the Started pods, so the limits hold again; said once (log, metric, Event).
import { EventsV1Api, type V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../../shared/evacuation/core/annotations.js';
import { SLOT_STORE_NAME, listSlots } from '../../../shared/evacuation/io/slot-store.js';
import { metricsExposition } from '../../../shared/metrics/exposition.js';
import { testNamespace } from '../../harness/index.js';
import { annotate, core, createVm, kc, readPod, serveEvacuation, useKubevirtStandIns, tickUntil } from './fixtures.js';

const ns = testNamespace('evac-state');

useKubevirtStandIns(ns);

const uid = (p: V1Pod) => p.metadata!.uid!;
const state = async (name: string) => (await readPod(ns.name, name))?.metadata?.annotations?.[ANNOTATIONS.state];
const ledgerData = async () =>
  (
    await core()
      .readNamespacedConfigMap({ namespace: ns.name, name: SLOT_STORE_NAME })
      .catch(() => undefined)
  )?.data;
/** Writes one entry of the slots' ConfigMap as another tool would (creates the ConfigMap if needed). */
async function writeEntry(key: string, raw: string): Promise<void> {
  const data = await ledgerData();
  if (data === undefined) await core().createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: SLOT_STORE_NAME }, data: { [key]: raw } } });
  else await core().patchNamespacedConfigMap({ namespace: ns.name, name: SLOT_STORE_NAME, body: [{ op: 'add', path: `/data/${key}`, value: raw }] });
}
const mendedEvents = async () =>
  (await kc().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns.name })).items.filter((e) => e.reason === 'EvacuationSlotsMended');
async function unreadableTotal(found: string): Promise<number> {
  const line = (await metricsExposition()).body
    .split('\n')
    .find((l) => l.startsWith('kube_tidy_state_unreadable_total{') && l.includes('store="evacuation-slots"') && l.includes(`found="${found}"`));
  return line ? Number(line.split(' ').pop()) : 0;
}
async function withdraw(fn: Awaited<ReturnType<typeof serveEvacuation>>, ...names: string[]): Promise<void> {
  for (const n of names) await fn.event(await annotate(ns.name, n, { [ANNOTATIONS.request]: null }));
}

describe("the evacuation slots' ConfigMap found not as kube-tidy wrote it", () => {
  it('an unreadable entry holds a slot (the cluster-wide limit counts it) until a tick finds its pod not in flight and frees it', async () => {
    const fn = await serveEvacuation(ns.name, { EVACUATION_MAX_PER_CLUSTER: '1', EVACUATION_MAX_PER_NODE: '10' });
    const idle = await createVm(ns.name, 'idle', { behaviour: 'hang' });
    // A truncated entry, keyed by a pod that runs no evacuation.
    await writeEntry(uid(idle), '{"pod":"' + ns.name + '/virt-launcher-idle","no');
    const before = await unreadableTotal('unreadable');
    const asked = await createVm(ns.name, 'asked', { request: true, behaviour: 'hang' });
    expect(await fn.event(asked)).toMatchObject({ outcome: 'queued', why: expect.stringContaining('1 of them unreadable') });
    expect(await state('virt-launcher-asked')).toBeUndefined();

    await tickUntil(fn, 'the queued pod started once the unreadable entry is freed', async () => (await state('virt-launcher-asked')) === 'Started');
    expect(Object.keys((await ledgerData()) ?? {})).toEqual([uid(asked)]);
    expect((await mendedEvents()).map((e) => e.note)).toEqual([expect.stringMatching(new RegExp(`1 unreadable entries \\(${uid(idle)}\\) freed`))]);
    expect(await unreadableTotal('unreadable')).toBe(before + 1);
    await withdraw(fn, 'virt-launcher-asked');
  });

  it('an unreadable entry of a pod in flight keeps its slot and is written again from its pod', async () => {
    const fn = await serveEvacuation(ns.name, { EVACUATION_MAX_PER_CLUSTER: '1', EVACUATION_MAX_PER_NODE: '10' });
    const running = await createVm(ns.name, 'running', { request: true, behaviour: 'hang' });
    expect(await fn.event(running)).toMatchObject({ outcome: 'started' });
    await writeEntry(uid(running), 'null');
    const next = await createVm(ns.name, 'next', { request: true, behaviour: 'hang' });
    expect(await fn.event(next)).toMatchObject({ outcome: 'queued' });
    await fn.tick();
    expect(await state('virt-launcher-next')).toBeUndefined();
    expect(await listSlots(core(), ns.name)).toEqual([
      { uid: uid(running), pod: `${ns.name}/virt-launcher-running`, node: running.spec!.nodeName!, at: expect.any(Number), attempt: 1 },
    ]);
    await withdraw(fn, 'virt-launcher-next', 'virt-launcher-running');
  });

  for (const how of ['deleted', 'emptied'] as const)
    it(`${how} while evacuations run: the tick writes their slots again from the Started pods, said once; new ones wait within the limits`, async () => {
      const fn = await serveEvacuation(ns.name, { EVACUATION_MAX_PER_CLUSTER: '2', EVACUATION_MAX_PER_NODE: '10' });
      const a = await createVm(ns.name, `${how}-a`, { request: true, behaviour: 'hang' });
      const b = await createVm(ns.name, `${how}-b`, { request: true, behaviour: 'hang' });
      expect((await Promise.all([fn.event(a), fn.event(b)])).map((x) => x.outcome)).toEqual(['started', 'started']);
      const earlier = new Set((await mendedEvents()).map((e) => e.metadata!.name));
      const before = await unreadableTotal('deleted');
      if (how === 'deleted') await core().deleteNamespacedConfigMap({ namespace: ns.name, name: SLOT_STORE_NAME });
      else await core().replaceNamespacedConfigMap({ namespace: ns.name, name: SLOT_STORE_NAME, body: { metadata: { name: SLOT_STORE_NAME }, data: {} } });

      await fn.tick();
      expect((await listSlots(core(), ns.name)).map((s) => s.pod).sort()).toEqual([`${ns.name}/virt-launcher-${how}-a`, `${ns.name}/virt-launcher-${how}-b`]);
      const c = await createVm(ns.name, `${how}-c`, { request: true, behaviour: 'hang' });
      expect(await fn.event(c)).toMatchObject({ outcome: 'queued', why: expect.stringContaining('2 evacuations in flight in the cluster (limit 2)') });
      await fn.tick();
      const notes = (await mendedEvents()).filter((e) => !earlier.has(e.metadata!.name)).map((e) => e.note);
      expect(notes).toEqual([expect.stringContaining(`${how === 'deleted' ? 'it was missing' : 'it held no entry'} for 2 evacuations in flight`)]);
      expect(await unreadableTotal('deleted')).toBe(before + 2);
      await withdraw(fn, `virt-launcher-${how}-c`, `virt-launcher-${how}-a`, `virt-launcher-${how}-b`);
      expect(await listSlots(core(), ns.name)).toEqual([]);
    });
});
