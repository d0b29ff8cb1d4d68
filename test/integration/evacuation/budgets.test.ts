import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { evacuation } from '../../../functions/evacuation.js';
import { DEFAULT_WINDOW_MS } from '../../../shared/policy/brakes-schema.js';
import { ANNOTATIONS } from '../../../shared/evacuation/core/annotations.js';
import { listSlots } from '../../../shared/evacuation/io/slot-store.js';
import { startRuntime, type Runtime } from '../../../shared/runtime/runtime.js';
import { pingRequest } from '../../fixtures/events/requests.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { knativeRequest, send, serve } from '../functions/setup.js';
import { annotate, core, createVm, evacuationEnv, POLICY, readPod, useKubevirtStandIns } from './fixtures.js';

// An explicit evacuation request is charged to the policy's limits only when the operator says
// so (EVACUATION_CHARGE_BUDGETS=true): then its start asks the admission port, as pod cleanup's
// and defrag's removals do, and waits, deferred, for the window that has room; otherwise its
// slots alone pace it. maxNoOfPodsToEvictTotal: 1, two requests, on the real control plane. The
// runtime's clock is the test's, so "the window ends" is a step of the clock, not a wait.

const ns = testNamespace('evac-budgets');
const runtimes: Runtime[] = [];
let ledgers = 0;

useKubevirtStandIns(ns);
afterAll(() => {
  for (const rt of runtimes) rt.brakes().close();
});

/** The function over HTTP with its own runtime on `clock`, the policy's cluster cap 1 (its default window). */
async function serveCharged(clock: { now: number }, env: Record<string, string>) {
  const ledger = `evac-budgets-${process.pid}-${++ledgers}`;
  const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-evac-budgets-')), 'policy.json');
  writeFileSync(file, JSON.stringify({ ...POLICY, maxNoOfPodsToEvictTotal: 1 }));
  const rt = await startRuntime(
    // A deadline far past the window: the started evacuation is still running when the clock moves.
    {
      POLICY_FILE: file,
      KUBECONFIG: sharedCluster().kubeconfigPath,
      ...evacuationEnv(ns.name, { EVACUATION_TIMEOUT_SECONDS: '7200', ...env }),
      // A ledger of its own (its slots too): no other test's removals spend this cap.
      BRAKES_NAMESPACE: ledger,
    },
    { log: pino({ level: 'silent' }), now: () => clock.now },
  );
  runtimes.push(rt);
  const agent = serve(evacuation, rt);
  return {
    ledger,
    event: async (pod: V1Pod) =>
      (await send(agent, knativeRequest('binary', 'update', { apiVersion: 'v1', kind: 'Pod', ...pod } as V1Pod))).body as Record<string, unknown>,
    tick: async () => (await send(agent, pingRequest())).body as { results: { pod: string; outcome: string; why: string }[] },
  };
}

/** A clock one second into a window of the policy's default length: both requests fall in it. */
const windowStart = (): { now: number } => ({ now: Math.floor(Date.now() / DEFAULT_WINDOW_MS) * DEFAULT_WINDOW_MS + 1000 });

const withdrawAll = async (prefix: string, fn: { ledger: string; event: (p: V1Pod) => Promise<unknown> }) => {
  for (const p of (await core().listNamespacedPod({ namespace: ns.name })).items.filter((x) => x.metadata!.name!.startsWith(`virt-launcher-${prefix}`)))
    await fn.event(await annotate(ns.name, p.metadata!.name!, { [ANNOTATIONS.request]: null }));
  expect(await listSlots(core(), fn.ledger)).toEqual([]);
};

describe("evacuation and the policy's limits", () => {
  it('EVACUATION_CHARGE_BUDGETS=true, maxNoOfPodsToEvictTotal 1: one request starts, the other waits deferred (still Requested, no slot) until the window ends', async () => {
    const clock = windowStart();
    const fn = await serveCharged(clock, { EVACUATION_CHARGE_BUDGETS: 'true' });
    const a = await createVm(ns.name, 'ch-a', { request: true, behaviour: 'hang' });
    const b = await createVm(ns.name, 'ch-b', { request: true, behaviour: 'hang' });
    const first = await fn.event(a);
    const second = await fn.event(b);
    expect(first).toMatchObject({ outcome: 'started' });
    expect(second).toMatchObject({ outcome: 'deferred', deferred: { kind: 'budget', budget: 'maxNoOfPodsToEvictTotal', scope: 'cluster', limit: 1 } });
    const held = (await readPod(ns.name, b.metadata!.name!))!;
    expect(held.metadata!.annotations?.[ANNOTATIONS.request]).toBeDefined();
    expect(held.metadata!.annotations?.[ANNOTATIONS.state]).toBeUndefined();
    expect((await listSlots(core(), fn.ledger)).map((s) => s.pod)).toEqual([`${ns.name}/${a.metadata!.name}`]);
    // Still the same window: a tick leaves it waiting, with the same answer.
    const key = `${ns.name}/${b.metadata!.name}`;
    expect((await fn.tick()).results.find((r) => r.pod === key)).toMatchObject({ outcome: 'deferred' });
    // The window ends: the next tick starts it.
    clock.now += DEFAULT_WINDOW_MS;
    expect((await fn.tick()).results.find((r) => r.pod === key)).toMatchObject({ outcome: 'started' });
    expect((await readPod(ns.name, b.metadata!.name!))!.metadata!.annotations?.[ANNOTATIONS.state]).toBe('Started');
    await withdrawAll('ch-', fn);
  });

  it('by default (not charged): both requests start within the slots, whatever the cap', async () => {
    const fn = await serveCharged(windowStart(), {});
    const a = await createVm(ns.name, 'free-a', { request: true, behaviour: 'hang' });
    const b = await createVm(ns.name, 'free-b', { request: true, behaviour: 'hang' });
    expect(await fn.event(a)).toMatchObject({ outcome: 'started' });
    expect(await fn.event(b)).toMatchObject({ outcome: 'started' });
    expect((await listSlots(core(), fn.ledger)).filter((s) => s.pod.startsWith(`${ns.name}/virt-launcher-free-`))).toHaveLength(2);
    await withdrawAll('free-', fn);
  });
});
