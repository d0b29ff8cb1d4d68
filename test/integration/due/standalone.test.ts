// Acting at eligibility in the standalone program (one real process, shared/hosts/standalone/
// main.ts, on the shared control plane): a Failed pod RemoveFailedPods takes at 20 s of age is
// gone within 30 s of that moment, (i) with no schedule at all, so only the leader's timers can
// act, and (ii) when the leader that saw its event is killed before then: the bridge's watch
// gives a new leader no events for pods that already exist, so what covers it is the due list
// the dead leader wrote and the new leader's podTerminated tick (here every 5 s, skipped while
// one holds; the chart's default is every minute), and (iii) a new leader ticks at once, not at
// its cron's next time.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyDoc } from '../../fixtures/policy.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { exists, runPod } from '../functions/setup.js';
import { startStandalone, type Standalone } from '../helm/standalone-process.js';
import { shardOf } from '../../../shared/cleanup/due/core/due.js';
import { dueEntries } from './setup.js';

const ns = testNamespace('due-sa');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
const AGE_S = 20;
const procs: Standalone[] = [];
let env: Record<string, string>;

beforeAll(() => {
  const policy = join(mkdtempSync(join(tmpdir(), 'kube-tidy-due-sa-')), 'policy.json');
  writeFileSync(
    policy,
    JSON.stringify(
      policyDoc([{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: AGE_S, namespaces: { include: [ns.name] } } }], {
        evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
      }),
    ),
  );
  env = {
    POLICY_FILE: policy,
    KUBECONFIG: sharedCluster().kubeconfigPath,
    POD_NAMESPACE: ns.name,
    KUBE_TIDY_NAMESPACE: ns.name,
    DRY_RUN: 'false',
    STANDALONE_FUNCTIONS: 'podTerminated',
    // No tick: what acts is the timers alone.
    STANDALONE_SCHEDULES: '{}',
    STANDALONE_SELECTORS: JSON.stringify({ namespaces: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [ns.name] }] } }),
    LEASE_NAME: 'kube-tidy-due',
    LEASE_DURATION_SECONDS: '4',
    LEASE_RENEW_DEADLINE_SECONDS: '3',
    LEASE_RETRY_PERIOD_SECONDS: '1',
    SHUTDOWN_TIMEOUT_SECONDS: '3',
  };
});

afterAll(() => {
  for (const p of procs) p.child.kill('SIGKILL');
});

async function start(name: string, more: Record<string, string> = {}): Promise<Standalone> {
  const p = await startStandalone(name, { ...env, ...more });
  procs.push(p);
  await waitFor(`${name} to lead`, async () => (await p.leader()) === true, { timeoutMs: 120_000, intervalMs: 100 }).catch((e: Error) => {
    throw new Error(`${e.message}\n${p.log.join('').slice(-4000)}`);
  });
  // Leading comes before watching: a pod that fails before the Pod watch has its starting
  // list produces no event (the sweep's to find), which a loaded machine made happen.
  await waitFor(`${name} to watch pods`, async () => p.log.join('').includes('watching from a fresh list') || undefined, {
    timeoutMs: 30_000,
    intervalMs: 100,
  }).catch((e: Error) => {
    throw new Error(`${e.message}\n${p.log.join('').slice(-4000)}`);
  });
  return p;
}

/** The pod is still there just before its eligibleAt, and gone within 30 s of it: how long after it went (ms). */
async function goneWithin(name: string, eligibleAt: number, logs: () => string): Promise<number> {
  await waitFor(`until just before ${name}'s eligibleAt`, async () => Date.now() >= eligibleAt - 1_000 || undefined, { timeoutMs: 60_000, intervalMs: 200 });
  expect(await exists(core(), ns.name, name), 'not acted on before eligibleAt').toBeDefined();
  await waitFor(`${name} gone`, async () => !(await exists(core(), ns.name, name)), { timeoutMs: 35_000, intervalMs: 250 }).catch((e: Error) => {
    throw new Error(`${e.message}\n${logs().slice(-4000)}`);
  });
  const late = Date.now() - eligibleAt;
  expect(late).toBeLessThan(30_000);
  return late;
}

describe('standalone acts at eligibleAt by its timers', () => {
  it('the leader that saw the pod fail removes it at its eligibleAt, with no schedule running', async () => {
    const p = await start('due-a');
    const pod = await runPod(core(), ns.name, 'sa-timed', { exitCode: 1 });
    const eligibleAt = new Date(pod.metadata!.creationTimestamp!).getTime() + AGE_S * 1000;
    await goneWithin('sa-timed', eligibleAt, () => p.log.join(''));
    await waitFor('the timer’s log line', async () => p.log.join('').includes('due: acted at eligibleAt') || undefined, { timeoutMs: 10_000 });
    p.child.kill('SIGTERM');
    await p.exited;
  }, 240_000);

  it('a leader killed after the event: the replica that takes over acts on time from the due list, on its tick', async () => {
    const a = await start('due-b');
    const pod = await runPod(core(), ns.name, 'sa-restart', { exitCode: 1 });
    const eligibleAt = new Date(pod.metadata!.creationTimestamp!).getTime() + AGE_S * 1000;
    // Its event reached the leader; then it dies, well before the pod is due.
    await waitFor(
      'the leader to have scheduled it (its entry in the due list)',
      async () => (await dueEntries(ns.name)).includes(pod.metadata!.uid!) || undefined,
      {
        timeoutMs: 10_000,
        intervalMs: 100,
      },
    );
    expect(Date.now()).toBeLessThan(eligibleAt - 8_000);
    a.child.kill('SIGKILL');
    await a.exited;
    const b = await start('due-c', { STANDALONE_SCHEDULES: JSON.stringify({ podTerminated: '@every 5s' }) });
    await goneWithin('sa-restart', eligibleAt, () => b.log.join(''));
    // Its tick acted (its log line may reach this process just after the pod went).
    await waitFor('the tick’s log line', async () => b.log.join('').includes('due: acted at eligibleAt (tick)') || undefined, { timeoutMs: 10_000 });
    b.child.kill('SIGTERM');
    await b.exited;
  }, 240_000);

  it('a new leader ticks podTerminated at once (main.ts wires atStart): a pod already due in the list goes within seconds, its cron a year away', async () => {
    const pod = await runPod(core(), ns.name, 'sa-at-start', { exitCode: 1 });
    const uid = pod.metadata!.uid!;
    const eligibleAt = new Date(pod.metadata!.creationTimestamp!).getTime() + AGE_S * 1000;
    // The entry a dead leader left: written here, as list.ts stores it (its uid's shard).
    const name = `kube-tidy-due-${shardOf(uid, 4)}`;
    const entry = JSON.stringify({ namespace: ns.name, name: 'sa-at-start', at: eligibleAt });
    const stored = await core()
      .readNamespacedConfigMap({ namespace: ns.name, name })
      .catch(() => undefined);
    if (stored) await core().replaceNamespacedConfigMap({ namespace: ns.name, name, body: { ...stored, data: { ...stored.data, [uid]: entry } } });
    else await core().createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name }, data: { [uid]: entry } } });
    await waitFor('the pod to be due', async () => Date.now() >= eligibleAt + 500 || undefined, { timeoutMs: 60_000, intervalMs: 200 });
    // No event will come (the watch starts from a fresh list) and the cron is once a year: only the start tick can act.
    const c = await start('due-d', { STANDALONE_SCHEDULES: JSON.stringify({ podTerminated: '0 0 1 1 *' }) });
    const led = Date.now();
    await waitFor('sa-at-start gone', async () => !(await exists(core(), ns.name, 'sa-at-start')), { timeoutMs: 20_000, intervalMs: 250 }).catch((e: Error) => {
      throw new Error(`${e.message}\n${c.log.join('').slice(-4000)}`);
    });
    expect(Date.now() - led).toBeLessThan(20_000);
    c.child.kill('SIGTERM');
    await c.exited;
  }, 240_000);
});
