import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../../shared/evacuation/core/annotations.js';
import { evictionRequestName } from '../../../shared/evacuation/core/eviction-request.js';
import { listSlots } from '../../../shared/evacuation/io/slot-store.js';
import { describeWrite, sharedAudit, sharedCluster, testNamespace, waitFor, type AuditMark } from '../../harness/index.js';
import { FUNCTIONS_SOURCE, startFunctionProcess, type FunctionProcess } from '../../harness/function-process.js';
import { knativeRequest, pingRequest } from '../functions/setup.js';
import type { MigrationController } from './controller.js';
import { startEvictionRequestHold, type EvictionRequestHold } from './eviction-request-hold.js';
import { startEvictionRequestStandIn, type EvictionRequestStandIn } from './eviction-request-standin.js';
import { core, createVm, custom, evacuationEnv, kc, POLICY, readPod, startKubevirtStandIns } from './fixtures.js';
import type { Webhook } from './webhook.js';

// kill.test.ts on the EvictionRequest path (lifecycle.k8s.io served, EVACUATION_EVICTION_REQUESTS
// =auto): a function process killed with SIGKILL in the middle of an evacuation whose request is
// an EvictionRequest; a fresh process continues from the cluster alone and ends it with one
// EvictionRequest for the attempt, one Eviction, one migration (kube-tidy.dev/kubevirt answers).
// The crash points are held, not timed: the stand-in controller is paused, and a create in
// flight is held inside the API server by a test admission webhook.

const ns = testNamespace('evac-kill-er');
const RESPONDERS = [{ name: 'kube-tidy.dev/kubevirt', priority: 10000 }];
let webhook: Webhook;
let controller: MigrationController;
let standIn: EvictionRequestStandIn;
let hold: EvictionRequestHold;
let env: Record<string, string>;
const spawned: FunctionProcess[] = [];

beforeAll(async () => {
  ({ webhook, controller } = await startKubevirtStandIns(ns.name));
  standIn = startEvictionRequestStandIn(sharedCluster(), ns.name);
  hold = await startEvictionRequestHold(kc(), ns.name);
  const policy = join(mkdtempSync(join(tmpdir(), 'kube-tidy-evac-')), 'policy.json');
  writeFileSync(policy, JSON.stringify(POLICY));
  const auto = { EVACUATION_EVICTION_REQUESTS: 'auto', EVACUATION_HEARTBEAT_SECONDS: '1', EVACUATION_MIN_HEARTBEAT_SECONDS: '0.5' };
  env = { POLICY_FILE: policy, KUBECONFIG: sharedCluster().kubeconfigPath, LOG_LEVEL: 'warn', ...evacuationEnv(ns.name, auto) };
});
afterAll(async () => {
  for (const f of spawned) await f.stop();
  await hold?.stop();
  await standIn?.stop();
  await controller?.stop();
  await webhook?.stop();
  expect(standIn.errors).toEqual([]);
});

async function start(): Promise<FunctionProcess> {
  const f = await startFunctionProcess('evacuation', FUNCTIONS_SOURCE, env);
  spawned.push(f);
  return f;
}
const post = (f: FunctionProcess, req: { headers: Record<string, string>; body: string }) =>
  fetch(f.url, { method: 'POST', headers: req.headers, body: req.body, signal: AbortSignal.timeout(60_000) }).then(
    async (r) => (await r.json()) as { results?: { pod: string; outcome: string }[] },
  );

/** The EvictionRequest creates in the test namespace the API server answered since `mark`. */
async function creates(mark: AuditMark, settle = true) {
  const writes = settle ? await sharedAudit().settledSince(mark) : sharedAudit().since(mark);
  return writes.filter((w) => w.verb === 'create' && w.resource === 'evictionrequests' && w.namespace === ns.name && !w.dryRun);
}

/** Process B: ticks (requester passes and responder rounds) until the pod is gone and its slot free. */
async function finish(name: string): Promise<void> {
  const b = await start();
  await waitFor(
    `${name} evacuated and its slot free`,
    async () => {
      await post(b, pingRequest());
      return !(await readPod(ns.name, name)) && (await listSlots(core(), ns.name)).length === 0;
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
}

async function expectStarted(name: string, uid: string): Promise<void> {
  expect((await readPod(ns.name, name))?.metadata?.annotations).toMatchObject({
    [ANNOTATIONS.state]: 'Started',
    [ANNOTATIONS.attempt]: '1',
    [ANNOTATIONS.evictionRequest]: evictionRequestName(uid, 1),
  });
}

describe('a function process killed mid-evacuation on the EvictionRequest path', () => {
  it('after the EvictionRequest was created, before any status was read back: a new process follows it to the end, one EvictionRequest, one migration', async () => {
    standIn.pause(); // nothing answers the request until the first process is dead
    const mark = sharedAudit().mark();
    const pod = await createVm(ns.name, 'after', { request: true, responders: RESPONDERS });
    const uid = pod.metadata!.uid!;
    const a = await start();
    const answered = post(a, knativeRequest('binary', 'update', { apiVersion: 'v1', kind: 'Pod', ...pod })).then(
      () => 'answered',
      () => 'killed',
    );
    // The API server logs the create (blocking audit mode) before it answers it.
    await waitFor('the EvictionRequest create in the audit log', async () => (await creates(mark, false)).some((w) => w.code === 201), { intervalMs: 5 });
    process.kill(a.pid, 'SIGKILL');
    await answered;
    await expectStarted('virt-launcher-after', uid);
    expect(standIn.made.get('virt-launcher-after')).toBeUndefined();
    standIn.resume();

    await finish('virt-launcher-after');
    const made = await creates(mark);
    expect(made.map(describeWrite)).toEqual([expect.stringMatching(/-> 201$/)]); // the successor never asked again
    expect(controller.created.get('after')).toHaveLength(1);
    expect(standIn.made.get('virt-launcher-after')).toBeDefined();
  });

  it('while its EvictionRequest create was in flight (held, then never stored): a new process makes it and ends the evacuation, one EvictionRequest, one migration', async () => {
    standIn.pause();
    const mark = sharedAudit().mark();
    const pod = await createVm(ns.name, 'before', { request: true, responders: RESPONDERS });
    const uid = pod.metadata!.uid!;
    let reached!: () => void;
    const inFlight = new Promise<void>((r) => (reached = r));
    let answer!: (v: 'allow' | 'deny') => void;
    const release = new Promise<'allow' | 'deny'>((r) => (answer = r));
    hold.hold = () => {
      reached();
      return release;
    };
    const a = await start();
    const answered = post(a, knativeRequest('binary', 'update', { apiVersion: 'v1', kind: 'Pod', ...pod })).then(
      () => 'answered',
      () => 'killed',
    );
    await inFlight;
    await expectStarted('virt-launcher-before', uid); // Started is written before the create is sent
    process.kill(a.pid, 'SIGKILL');
    expect(await answered).toBe('killed');
    hold.hold = undefined;
    answer('deny'); // the dead process's create is never stored
    await waitFor('the held create answered', async () => (await creates(mark, false)).length === 1, { intervalMs: 20 });
    expect(
      await custom()
        .getNamespacedCustomObject({
          group: 'lifecycle.k8s.io',
          version: 'v1alpha1',
          plural: 'evictionrequests',
          namespace: ns.name,
          name: evictionRequestName(uid, 1),
        })
        .then(
          () => 'there',
          () => 'absent',
        ),
    ).toBe('absent');
    standIn.resume();

    await finish('virt-launcher-before');
    const codes = (await creates(mark)).map((w) => w.code);
    expect(codes.filter((c) => c === 201)).toHaveLength(1); // the successor's, for the same attempt
    expect(hold.seen.filter((n) => n === evictionRequestName(uid, 1))).toHaveLength(2);
    expect(controller.created.get('before')).toHaveLength(1);
  });
});
