import { EventsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testNamespace, waitFor } from '../../harness/index.js';
import type { MigrationController } from './controller.js';
import { annotate, core, createVm, custom, kc, migrations, serveEvacuation, startKubevirtStandIns } from './fixtures.js';
import type { Webhook } from './webhook.js';

// DRY_RUN=true writes nothing: no annotation, no eviction, no migration created or deleted, no
// ledger ConfigMap, no Event. Nothing is stored, so every call plans from what the cluster
// holds and its answer says what it would do. Two cases: a new request (the start: a slot,
// the Started state, the eviction or a migration), and one under way that was withdrawn (the
// end: the migration deleted, the markers cleared, the slot given back, an Event).

const ns = testNamespace('evac-dry');
const REQUEST = 'evacuation.kube-tidy.dev/request';
let webhook: Webhook;
let controller: MigrationController;

beforeAll(async () => {
  ({ webhook, controller } = await startKubevirtStandIns(ns.name));
});
afterAll(async () => {
  await controller?.stop();
  await webhook?.stop();
});

/** What an evacuation could change in the namespace: resourceVersions by kind and name, and kube-tidy's Events. */
async function stored(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const p of (await core().listNamespacedPod({ namespace: ns.name })).items) out[`pod/${p.metadata!.name}`] = p.metadata!.resourceVersion!;
  for (const c of (await core().listNamespacedConfigMap({ namespace: ns.name })).items) out[`configmap/${c.metadata!.name}`] = c.metadata!.resourceVersion!;
  for (const m of await migrations(ns.name)) out[`migration/${m.metadata.name}`] = (m.metadata as { resourceVersion?: string }).resourceVersion!;
  const vmis = (await custom().listNamespacedCustomObject({ group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances', namespace: ns.name })) as {
    items: { metadata: { name: string; resourceVersion: string } }[];
  };
  for (const v of vmis.items) out[`vmi/${v.metadata.name}`] = v.metadata.resourceVersion;
  const events = await kc().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns.name });
  for (const e of events.items.filter((x) => x.reportingController === 'kube-tidy.dev/kube-tidy'))
    out[`event/${e.metadata!.name}`] = e.metadata!.resourceVersion!;
  return out;
}

describe('evacuation with DRY_RUN=true', () => {
  it('answers what it would do at the start and at the end of an evacuation, and writes nothing', async () => {
    // Under way: a real deployment starts "held" (its migration hangs), then the request is withdrawn.
    const real = await serveEvacuation(ns.name);
    const held = await createVm(ns.name, 'held', { request: true, behaviour: 'hang' });
    expect(await real.event(held)).toMatchObject({ outcome: 'started' });
    await waitFor('the migration Running', async () => (await migrations(ns.name)).some((m) => m.spec.vmiName === 'held' && m.status?.phase === 'Running'));
    const withdrawn = await annotate(ns.name, 'virt-launcher-held', { [REQUEST]: null });
    // New: "fresh" is requested and nothing has started.
    const fresh = await createVm(ns.name, 'fresh', { request: true });
    const before = await stored();
    expect(Object.keys(before).filter((k) => k.startsWith('configmap/kube-tidy-brakes'))).toHaveLength(1);

    const dry = await serveEvacuation(ns.name, { DRY_RUN: 'true', RECORD_EVENTS: 'true' });
    const started = await dry.event(fresh);
    expect(await stored()).toEqual(before);
    expect(started).toMatchObject({
      outcome: 'started',
      attempt: 1,
      dryRun: true,
      why: expect.stringMatching(/^dry run, nothing written: would start the attempt: /),
    });
    expect(await dry.event(withdrawn)).toMatchObject({
      outcome: 'cancelled',
      dryRun: true,
      why: expect.stringMatching(/^dry run, nothing written: would end it as Cancelled: the request was withdrawn/),
    });
    const direct = await serveEvacuation(ns.name, { DRY_RUN: 'true', EVACUATION_KUBEVIRT_METHOD: 'migration' });
    expect(await direct.event(fresh)).toMatchObject({
      outcome: 'started',
      dryRun: true,
      migration: `kube-tidy-${fresh.metadata!.uid}-1`,
      why: expect.stringContaining('created'),
    });
    const tick = await dry.tick();
    expect(tick.results.map((r) => [r.pod, r.outcome]).sort()).toEqual([
      [`${ns.name}/virt-launcher-fresh`, 'started'],
      [`${ns.name}/virt-launcher-held`, 'cancelled'],
    ]);

    await new Promise((r) => setTimeout(r, 500)); // a real eviction would reach the webhook and the controller by now
    expect(await stored()).toEqual(before);
    expect(controller.created.get('fresh')).toBeUndefined();
    expect(webhook.answers.filter(([pod]) => pod === 'virt-launcher-fresh')).toEqual([]);
  });
});
