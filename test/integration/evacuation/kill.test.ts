import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../../shared/evacuation/core/annotations.js';
import { listSlots } from '../../../shared/evacuation/io/slot-store.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { FUNCTIONS_SOURCE, startFunctionProcess, type FunctionProcess } from '../../harness/function-process.js';
import { knativeRequest, pingRequest } from '../functions/setup.js';
import { BEHAVIOUR, type MigrationController } from './controller.js';
import { core, createVm, evacuationEnv, kc, migrations, POLICY, readPod, startKubevirtStandIns } from './fixtures.js';
import type { Webhook } from './webhook.js';

// A function process killed with SIGKILL in the middle of an evacuation: a new process
// continues from what is stored on the pod and ends it with exactly one migration.

const ENTRY = FUNCTIONS_SOURCE;
const ns = testNamespace('evac-kill');
let webhook: Webhook;
let controller: MigrationController;
let env: Record<string, string>;
const spawned: FunctionProcess[] = [];

beforeAll(async () => {
  ({ webhook, controller } = await startKubevirtStandIns(ns.name));
  const policy = join(mkdtempSync(join(tmpdir(), 'kube-tidy-evac-')), 'policy.json');
  writeFileSync(policy, JSON.stringify(POLICY));
  env = { POLICY_FILE: policy, KUBECONFIG: sharedCluster().kubeconfigPath, LOG_LEVEL: 'warn', ...evacuationEnv(ns.name) };
});
afterAll(async () => {
  for (const f of spawned) await f.stop();
  await controller?.stop();
  await webhook?.stop();
});

async function start(): Promise<FunctionProcess> {
  const f = await startFunctionProcess('evacuation', ENTRY, env);
  spawned.push(f);
  return f;
}
const post = (f: FunctionProcess, req: { headers: Record<string, string>; body: string }) =>
  fetch(f.url, { method: 'POST', headers: req.headers, body: req.body, signal: AbortSignal.timeout(60_000) }).then(
    async (r) => (await r.json()) as { results?: { pod: string; outcome: string }[] },
  );
function gate<T>() {
  let open!: (v: T) => void;
  const opened = new Promise<T>((r) => (open = r));
  return { open, opened };
}
const bounded = <T>(p: Promise<T>, what: string) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 60_000))]);

async function killMidway(pod: Parameters<typeof knativeRequest>[2], reached: Promise<unknown>): Promise<void> {
  const a = await start();
  const answered = post(a, knativeRequest('binary', 'update', { apiVersion: 'v1', kind: 'Pod', ...pod })).then(
    () => 'answered',
    () => 'killed',
  );
  await bounded(reached, 'the eviction to reach the webhook');
  // The start is recorded on the pod before the eviction is sent.
  expect((await readPod(ns.name, pod.metadata!.name!))?.metadata?.annotations).toMatchObject({ [ANNOTATIONS.state]: 'Started', [ANNOTATIONS.attempt]: '1' });
  process.kill(a.pid, 'SIGKILL');
  expect(await answered).toBe('killed');
}

async function finish(b: FunctionProcess, name: string): Promise<void> {
  await waitFor(
    `${name} evacuated and its slot free`,
    async () => {
      await post(b, pingRequest());
      return !(await readPod(ns.name, name)) && (await listSlots(core(), ns.name)).length === 0;
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
}

describe('a function process killed mid-evacuation', () => {
  it('after the migration was created: a new process records it, waits for it and ends it, one migration', async () => {
    const pod = await createVm(ns.name, 'after', { request: true, behaviour: 'hold' });
    const reached = gate<void>();
    const release = gate<void>();
    webhook.holdAfter = async () => {
      reached.open();
      await release.opened;
    };
    await killMidway(pod, reached.opened);
    webhook.holdAfter = undefined;
    release.open();
    expect(controller.created.get('after')).toHaveLength(1);

    const b = await start();
    const first = await post(b, pingRequest());
    expect(first.results).toContainEqual(expect.objectContaining({ pod: `${ns.name}/virt-launcher-after`, outcome: 'waiting' }));
    expect((await readPod(ns.name, 'virt-launcher-after'))?.metadata?.annotations?.[ANNOTATIONS.migration]).toBe(controller.created.get('after')![0]);
    await kc()
      .makeApiClient(CustomObjectsApi)
      .patchNamespacedCustomObject(
        {
          group: 'kubevirt.io',
          version: 'v1',
          plural: 'virtualmachineinstances',
          namespace: ns.name,
          name: 'after',
          body: { metadata: { labels: { [BEHAVIOUR]: 'succeed' } } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    await finish(b, 'virt-launcher-after');
    expect(controller.created.get('after')).toHaveLength(1);
    expect((await migrations(ns.name)).filter((m) => m.spec.vmiName === 'after').map((m) => m.status?.phase)).toEqual(['Succeeded']);
  });

  it('before the eviction reached KubeVirt: a new process repeats the start and ends it, one migration', async () => {
    const pod = await createVm(ns.name, 'before', { request: true });
    const reached = gate<void>();
    const release = gate<'go' | 'fail'>();
    webhook.holdBefore = async () => {
      reached.open();
      return release.opened;
    };
    await killMidway(pod, reached.opened);
    webhook.holdBefore = undefined;
    release.open('fail'); // the dead function's eviction is refused without a migration
    expect(controller.created.get('before')).toBeUndefined();

    const b = await start();
    await finish(b, 'virt-launcher-before');
    expect(controller.created.get('before')).toHaveLength(1);
  });
});
