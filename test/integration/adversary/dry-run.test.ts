// Issue 12: a deployment with DRY_RUN=true writes nothing, for every target, on the real
// control plane: each function as its own process from the production entry with its own
// ServiceAccount and DRY_RUN=true, given work it would really do, and the audit log must show
// no write from it other than dry runs (dryRun=All). The stored objects are checked too.
// (jobDeleted and orphanSweep need a MultiKueue manager and workers: test/integration/
// multikueue/dry-run-process-cases.ts, in that file's clusters.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWrite, testNamespace, type AuditWrite } from '../../harness/index.js';
import type { ServerProcess } from '../../harness/function-process.js';
import { createVm, installKubevirtCrds, migrations } from '../evacuation/fixtures.js';
import { adversary, INVOKE_TOKEN, type Adversary, type Target } from './env.js';
import { asEvent } from './events.js';
import { apiServerSourceEvent, json, pingTick, post, type Wire } from './wire.js';

// Defrag's marks on a node, as stored: the on-cluster contract, written out rather than
// imported so the test does not move when the code does.
const MARK = 'kube-tidy.dev/defrag';
const IN_FLIGHT = 'kube-tidy.dev/defrag-in-flight';
const CORDONED = 'kube-tidy.dev/defrag-cordoned';

const ns = testNamespace('adv-dry');
let env: Adversary;
const dry: Partial<Record<Target, ServerProcess>> = {};

beforeAll(async () => {
  env = await adversary(ns.name, []);
  await installKubevirtCrds();
  const targets: Target[] = ['podTerminated', 'sweep', 'invoke', 'defrag', 'evacuation'];
  // The migration method: evacuation creates VirtualMachineInstanceMigrations itself.
  await Promise.all(targets.map(async (t) => (dry[t] = await env.spawn(t, { DRY_RUN: 'true', EVACUATION_KUBEVIRT_METHOD: 'migration' }))));
}, 180_000);
afterAll(async () => {
  await Promise.all(Object.values(dry).map((p) => p.stop()));
  await env?.stop();
});

/** Sends `w` to the dry-run `target`; answers the status and every write it made that was not a dry run. */
async function dryRun(target: Target, w: Wire): Promise<{ status: number; body: string; persisted: AuditWrite[] }> {
  const mark = env.mark();
  const r = await post(dry[target]!.url, w, 60_000);
  const persisted = (await env.writesSince(mark)).filter((x) => !x.dryRun);
  return { status: r.status, body: r.body, persisted };
}

function expectNothingPersisted(r: { status: number; body: string; persisted: AuditWrite[] }): void {
  const list = r.persisted.map(describeWrite);
  expect(list, list.join('\n')).toEqual([]);
  expect(r.status, r.body.slice(0, 300)).toBeLessThan(300);
}

describe('DRY_RUN=true writes nothing', () => {
  it('podTerminated, given a Failed pod the policy selects, deletes nothing and records no Event', async () => {
    const pod = await env.staticPod('dry-failed', { phase: 'Failed', labels: { tidy: 'yes' } });
    expectNothingPersisted(await dryRun('podTerminated', apiServerSourceEvent(asEvent(pod))));
    expect((await env.core.readNamespacedPod({ namespace: env.ns, name: 'dry-failed' })).metadata?.deletionTimestamp).toBeUndefined();
  });

  it('sweep, given pods the policy selects, deletes nothing and records no Event', async () => {
    for (const n of ['dry-sweep-0', 'dry-sweep-1']) await env.staticPod(n, { phase: 'Succeeded', labels: { tidy: 'yes' } });
    expectNothingPersisted(await dryRun('sweep', pingTick()));
    expect((await env.core.listNamespacedPod({ namespace: env.ns })).items.filter((p) => p.metadata?.name?.startsWith('dry-sweep-'))).toHaveLength(2);
  });

  it('invoke in run mode (token and confirmation given) deletes nothing and records no Event', async () => {
    await env.staticPod('dry-invoke', { phase: 'Failed', labels: { tidy: 'yes' } });
    const auth = { authorization: `Bearer ${INVOKE_TOKEN}`, 'x-kube-tidy-invoke-token': INVOKE_TOKEN };
    expectNothingPersisted(await dryRun('invoke', json({ mode: 'run', confirm: true, namespaces: [env.ns] }, auth)));
    await env.core.readNamespacedPod({ namespace: env.ns, name: 'dry-invoke' });
  });

  it("defrag's tick, with a move in flight from an earlier step, neither clears the record nor uncordons the held node", async () => {
    // A node the earlier (real) step cordoned to hold a swap's spot, its move long overdue:
    // the verify step would clear the in-flight record and give the node back. Tainted, so
    // nothing of another test lands there whatever happens.
    const node = `${env.ns}-held`;
    const move = {
      step: 1,
      pod: { namespace: env.ns, name: 'moved', uid: 'moved-uid' },
      owner: { kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid' },
      from: node,
      to: 'elsewhere',
      frees: node,
      reserveFor: { namespace: env.ns, name: 'next', uid: 'next-uid' },
      reason: 'test',
    };
    const annotations = { [MARK]: 'reserved', [CORDONED]: 'true', [IN_FLIGHT]: JSON.stringify({ move, ownerUids: ['moved-uid'], at: 0 }) };
    await env.core.createNode({
      body: {
        metadata: { name: node, annotations, labels: { 'kubernetes.io/hostname': node } },
        spec: { unschedulable: true, taints: [{ key: 'kube-tidy.dev/adversary', effect: 'NoSchedule' }] },
        status: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' }, capacity: { cpu: '8', memory: '32Gi', pods: '110' } },
      },
    });
    try {
      expectNothingPersisted(await dryRun('defrag', pingTick('defrag')));
      const stored = await env.core.readNode({ name: node });
      expect(stored.spec?.unschedulable).toBe(true);
      expect(stored.metadata?.annotations).toMatchObject(annotations);
    } finally {
      await env.core.deleteNode({ name: node });
    }
  });

  it('evacuation, given an event for a launcher pod marked for evacuation, annotates nothing and creates no migration', async () => {
    const pod = await createVm(env.ns, 'dry-event', { request: true });
    expectNothingPersisted(await dryRun('evacuation', apiServerSourceEvent(asEvent(pod))));
    const stored = await env.core.readNamespacedPod({ namespace: env.ns, name: 'virt-launcher-dry-event' });
    expect(stored.metadata?.annotations).toEqual(pod.metadata?.annotations);
    expect(await migrations(env.ns)).toEqual([]);
  });

  it("evacuation's tick, with a launcher pod marked for evacuation, annotates nothing and creates no migration", async () => {
    const pod = await createVm(env.ns, 'dry-tick', { request: true });
    expectNothingPersisted(await dryRun('evacuation', pingTick('evacuation')));
    const stored = await env.core.readNamespacedPod({ namespace: env.ns, name: 'virt-launcher-dry-tick' });
    expect(stored.metadata?.annotations).toEqual(pod.metadata?.annotations);
    expect(await migrations(env.ns)).toEqual([]);
    const cms = (await env.core.listNamespacedConfigMap({ namespace: env.ns })).items.map((c) => c.metadata!.name).filter((n) => n !== 'kube-root-ca.crt');
    expect(cms).toEqual([]);
  });
});
