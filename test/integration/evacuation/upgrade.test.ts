// Issue 34: the slots moved from a ConfigMap of their own (kube-tidy-evacuations) into the brakes'
// ledger (kube-tidy-brakes). An upgrade with an evacuation in flight: the cluster as the previous
// release left it (the pod Started, its migration running, its slot in the old ConfigMap in the
// old format, a ledger with no slots), then two upgraded instances at once. The evacuation keeps
// its slot across the upgrade and finishes; a request beyond the limit waits for it; the old
// slots are in the ledger and the old ConfigMap is gone.
import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../../shared/evacuation/core/annotations.js';
import { LEGACY_SLOTS_NAME } from '../../../shared/evacuation/io/legacy-slots.js';
import { SLOT_STORE_NAME, listSlots } from '../../../shared/evacuation/io/slot-store.js';
import { testNamespace } from '../../harness/index.js';
import { annotate, core, createVm, readPod, serveEvacuation, setMigrationBehaviour, tickUntil, useKubevirtStandIns } from './fixtures.js';

const ns = testNamespace('evac-upgrade');

useKubevirtStandIns(ns);

const state = async (name: string) => (await readPod(ns.name, name))?.metadata?.annotations?.[ANNOTATIONS.state];
const readCm = (name: string) =>
  core()
    .readNamespacedConfigMap({ namespace: ns.name, name })
    .catch(() => undefined);
const LIMITS = { EVACUATION_MAX_PER_CLUSTER: '1', EVACUATION_MAX_PER_NODE: '10' };
/** A count of the brakes' that no write of the slots may lose: a window of a day, begun today. */
const SENTINEL = `cluster|86400000|${Math.floor(Date.now() / 86_400_000) * 86_400_000}|`;

/**
 * The cluster as the previous release leaves it with `a` in flight. Its pod's state annotations
 * and migration are what both releases write, so a process of this one starts it; its slot is
 * then moved where the previous release kept it, in that release's format (slot-store.ts's
 * `slotsCodec` on main: one key per pod uid, JSON.stringify({ pod, node, at, attempt })), and the
 * ledger is left as that release's brakes wrote it (counts, holds, trips; no slots).
 */
async function asThePreviousReleaseLeftIt(): Promise<{ uid: string; slot: { pod: string; node: string; at: number; attempt?: number } }> {
  const before = await serveEvacuation(ns.name, LIMITS);
  const a = await createVm(ns.name, 'a', { request: true, behaviour: 'hold' });
  expect(await before.event(a)).toMatchObject({ outcome: 'started' });
  const ledger = (await readCm(SLOT_STORE_NAME))!;
  const { slots, slotsMended: _mended, ...brakes } = JSON.parse(ledger.data!['ledger.json']!);
  const uid = a.metadata!.uid!;
  const { pod, node, at, attempt } = slots[uid];
  await core().replaceNamespacedConfigMap({
    namespace: ns.name,
    name: SLOT_STORE_NAME,
    body: {
      metadata: { name: SLOT_STORE_NAME, resourceVersion: ledger.metadata!.resourceVersion },
      data: { 'ledger.json': JSON.stringify({ ...brakes, counts: { [SENTINEL]: 1 } }) },
    },
  });
  await core().createNamespacedConfigMap({
    namespace: ns.name,
    body: { metadata: { name: LEGACY_SLOTS_NAME }, data: { [uid]: JSON.stringify({ pod, node, at, attempt }) } },
  });
  return { uid, slot: { pod, node, at, attempt } };
}

describe('an upgrade with an evacuation in flight', () => {
  it('keeps its slot across the upgrade: a request beyond the limit waits until it finishes; its slot is carried into the ledger and the old ConfigMap removed', async () => {
    const { uid, slot } = await asThePreviousReleaseLeftIt();
    expect(slot).toMatchObject({ pod: `${ns.name}/virt-launcher-a`, attempt: 1 });
    expect(await listSlots(core(), ns.name)).toEqual([]);

    // Two upgraded instances at once, each asked to start b: both carry the old slots. The
    // previous release wrote the ledger without a field manager (the API server named it after
    // the client, node-fetch), so the upgraded ones take it as another writer's (issue 44):
    // rebuilt blind, its slots unknown until a tick writes them back from the Started pods.
    const [one, two] = await Promise.all([serveEvacuation(ns.name, LIMITS), serveEvacuation(ns.name, LIMITS)]);
    const b = await createVm(ns.name, 'b', { request: true, behaviour: 'hang' });
    const answers = await Promise.all([one.event(b), two.event(b)]);
    const unknown = expect.stringMatching(/ledger was rewritten by node-fetch .* the evacuations in flight are unknown until a tick/);
    expect(answers).toEqual([expect.objectContaining({ outcome: 'queued', why: unknown }), expect.objectContaining({ outcome: 'queued', why: unknown })]);
    expect(await state('virt-launcher-b')).toBeUndefined();
    expect(await listSlots(core(), ns.name)).toEqual([{ uid, ...slot }]);
    expect(await readCm(LEGACY_SLOTS_NAME)).toBeUndefined();
    expect(JSON.parse((await readCm(SLOT_STORE_NAME))!.data!['ledger.json']!).counts).toEqual({ [SENTINEL]: 1 });

    // Still in flight: a tick of either leaves b waiting and a holding its slot; once the tick
    // wrote the slots back, b waits for the limit again, as before the upgrade.
    await one.tick();
    await two.tick();
    expect(await state('virt-launcher-a')).toBe('Started');
    expect(await state('virt-launcher-b')).toBeUndefined();
    expect((await listSlots(core(), ns.name)).map((s) => s.uid)).toEqual([uid]);
    expect(await one.event(b)).toMatchObject({ outcome: 'queued', why: expect.stringContaining('1 evacuations in flight in the cluster (limit 1)') });

    // a's migration goes on and succeeds (KubeVirt deletes the source pod): its slot is given
    // back, and b starts in its place.
    await setMigrationBehaviour(ns.name, 'a', 'succeed');
    await tickUntil(
      one,
      'a finished and b started in its slot',
      async () => !(await readPod(ns.name, 'virt-launcher-a')) && (await state('virt-launcher-b')) === 'Started',
    );
    expect((await listSlots(core(), ns.name)).map((s) => s.pod)).toEqual([`${ns.name}/virt-launcher-b`]);
    await one.event(await annotate(ns.name, 'virt-launcher-b', { [ANNOTATIONS.request]: null }));
    expect(await listSlots(core(), ns.name)).toEqual([]);
    expect(await readCm(LEGACY_SLOTS_NAME)).toBeUndefined();
  });
});
