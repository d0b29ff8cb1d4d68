// `kube-tidy descheduler` on the real control plane, as a descheduler install runs it: the
// process (from source, as /bin/descheduler runs the bundle), the descheduler's own
// ServiceAccount and ClusterRole (test/harness/descheduler-rbac.ts, read from its module), a
// token of it as the pod's credentials. Under v0.36.0's role terminal pods are DELETEd; under
// HEAD's (no `pods delete`) they go through the Eviction API; neither grants ConfigMaps, so the
// policy's maxNoOfPodsToEvictTotal holds per cycle, as in the descheduler, and the log says so.
// Then the long-running form: the Lease, the secure port's /healthz and /metrics with the
// descheduler's metric names, and SIGTERM giving the Lease up.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api, EventsV1Api } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_SOURCE, runCli } from '../../harness/cli-process.js';
import { deschedulerAccount, removeDeschedulerAccount, type RoleVariant } from '../../harness/descheduler-rbac.js';
import { freePorts } from '../../harness/ports.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { failedPolicy, makePods, podNames, range } from '../brakes/helpers.js';

const ns = testNamespace('descheduler-cmd');
const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-descheduler-'));
const accounts: Record<RoleVariant, string> = { 'v0.36.0': '', head: '' };
const suffixes: string[] = [];

beforeAll(async () => {
  const kc = sharedCluster().kubeConfig();
  for (const variant of ['v0.36.0', 'head'] as const) {
    const suffix = `${ns.name}-${variant.replace(/\./g, '')}`;
    suffixes.push(suffix);
    accounts[variant] = await deschedulerAccount(kc, { namespace: ns.name, suffix, variant, dir });
  }
}, 60_000);
afterAll(async () => {
  for (const s of suffixes) await removeDeschedulerAccount(sharedCluster().kubeConfig(), s);
});

/** A policy file: RemoveFailedPods over `labels` in this file's namespace, at most `total` per cycle. */
function policyFile(name: string, total: number, labels: Record<string, string>): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, stringify(failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: total }, labels)));
  return file;
}

const left = async (prefix: string) => (await podNames(ns.name)).filter((n) => n.startsWith(prefix));

async function eventsAbout(prefix: string) {
  const events = await sharedCluster().kubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns.name });
  return events.items.filter((e) => e.regarding?.name?.startsWith(prefix) && e.reportingController?.includes('kube-tidy'));
}

describe.each([
  { variant: 'v0.36.0' as const, via: 'delete' },
  { variant: 'head' as const, via: 'Eviction API' },
])("under the descheduler's $variant ClusterRole", ({ variant, via }) => {
  it(`removes terminal pods by ${via}, at most maxNoOfPodsToEvictTotal per cycle, and says so`, async () => {
    const prefix = `f-${variant.replace(/\./g, '')}`;
    const labels = { set: prefix };
    await makePods(ns.name, range(prefix, 5), { exitCode: 137, labels });
    const file = policyFile(prefix, 2, labels);
    const once = ['descheduler', '--policy-config-file', file, '--descheduling-interval', '0', '--kubeconfig', accounts[variant], '--secure-port', '0'];

    const first = await runCli(once, { killAfterMs: 60_000 });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(via === 'delete' ? '"terminalPods":"delete"' : '"terminalPods":"Eviction API (this account may not delete pods)"');
    expect(first.stderr).toMatch(/"limits":"per cycle, as the descheduler/);
    expect(await left(prefix)).toHaveLength(3);
    // A new cycle, a new count (the descheduler's limits are per cycle).
    const second = await runCli(once, { killAfterMs: 60_000 });
    expect(second.code, second.stderr).toBe(0);
    expect(await left(prefix)).toHaveLength(1);
    // One Event per pod removed, as the descheduler writes it: action Descheduled, reason the strategy.
    const events = await waitFor('4 Events', async () => {
      const found = await eventsAbout(prefix);
      return found.length >= 4 ? found : undefined;
    });
    expect(events.map((e) => [e.action, e.reason])).toEqual(Array(4).fill(['Descheduled', 'RemoveFailedPods']));
  }, 150_000);
});

/** GET over HTTPS from the self-signed secure port. */
function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject).end();
  });
}

describe('the long-running descheduler', () => {
  it('cycles under the Lease, serves /healthz and /metrics with the descheduler names over HTTPS, and gives the Lease up on SIGTERM', async () => {
    const prefix = 'lr';
    const labels = { set: prefix };
    await makePods(ns.name, range(prefix, 2), { exitCode: 137, labels });
    const [port] = await freePorts(1);
    // The v0.36.0 role may get only the Lease named "descheduler": in this file's namespace.
    const args = ['descheduler', `--policy-config-file=${policyFile(prefix, 10, labels)}`, '--descheduling-interval=1h', `--kubeconfig=${accounts['v0.36.0']}`];
    args.push('--leader-elect', '--leader-elect-retry-period', '1s', `--leader-elect-resource-namespace=${ns.name}`, `--secure-port=${port}`, '--v=4');
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_SOURCE, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const leases = sharedCluster().kubeConfig().makeApiClient(CoordinationV1Api);
      const holder = await waitFor(
        'the Lease held',
        async () => (await leases.readNamespacedLease({ namespace: ns.name, name: 'descheduler' }).catch(() => undefined))?.spec?.holderIdentity,
        {
          timeoutMs: 60_000,
        },
      );
      expect(holder).toMatch(/_[0-9a-f-]{36}$/);
      await waitFor('the first cycle', async () => ((await left(prefix)).length === 0 ? true : undefined), { timeoutMs: 60_000 });
      expect(await get(port!, '/healthz')).toEqual({ status: 200, body: 'ok' });
      const metrics = await waitFor('the cycle in /metrics', async () => {
        const m = await get(port!, '/metrics');
        return m.body.includes('descheduler_loop_duration_seconds_count') ? m : undefined;
      });
      expect(metrics.status).toBe(200);
      // One series per node (the two pods may sit on different nodes): 2 in all for this namespace.
      const series = new RegExp(
        `^descheduler_pods_evicted_total\\{result="success",strategy="RemoveFailedPods",profile="test",namespace="${ns.name}",node="[^"]+"\\} (\\d+)$`,
        'gm',
      );
      expect([...metrics.body.matchAll(series)].reduce((n, m) => n + Number(m[1]), 0)).toBe(2);
      expect(metrics.body).toMatch(/descheduler_build_info\{[^}]*DeschedulerVersion="[^"]*v0\.36\.0[^"]*"[^}]*\} 1/);
      expect(metrics.body).toMatch(/descheduler_strategy_duration_seconds_count\{[^}]*strategy="RemoveFailedPods"/);
      expect(metrics.body).toMatch(/kube_tidy_pods_evicted_total\{/);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, stderr).toBe(0);
    const after = await sharedCluster().kubeConfig().makeApiClient(CoordinationV1Api).readNamespacedLease({ namespace: ns.name, name: 'descheduler' });
    expect(after.spec?.holderIdentity ?? '').toBe('');
  }, 150_000);

  it('without an election, cycles at once and then every interval (non-sliding), and stops with 0 on SIGTERM', async () => {
    const args = [
      'descheduler',
      `--policy-config-file=${policyFile('tick', 10, { set: 'tick' })}`,
      '--descheduling-interval=2s',
      `--kubeconfig=${accounts.head}`,
      '--secure-port=0',
    ];
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_SOURCE, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const lines = () =>
      stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { time: string; msg: string; seconds?: number });
    // When each cycle started: its end less its own duration (both in its log line).
    const starts = () => lines().flatMap((l) => (l.msg === 'descheduling cycle done' ? [Date.parse(l.time) - l.seconds! * 1000] : []));
    try {
      await waitFor('3 cycles', async () => (starts().length >= 3 ? true : undefined), { timeoutMs: 60_000 });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, stderr).toBe(0);
    const ready = Date.parse(lines().find((l) => l.msg.startsWith('kube-tidy descheduler: how it removes pods'))!.time);
    const [a, b, c] = starts();
    // The first at once once set up (well under the interval), each next one an interval after the last began,
    // whatever the cycles took (non-sliding); the log's times are whole milliseconds.
    expect(a! - ready).toBeLessThan(1_500);
    expect(b! - a!).toBeGreaterThanOrEqual(1_990);
    expect(c! - b!).toBeGreaterThanOrEqual(1_990);
  }, 90_000);

  it('with a 720h interval (past what a Node timer holds), runs one cycle and then waits, stopping with 0 on SIGTERM', async () => {
    const prefix = 'month';
    const labels = { set: prefix };
    await makePods(ns.name, range(prefix, 1), { exitCode: 137, labels });
    const args = ['descheduler', `--policy-config-file=${policyFile(prefix, 10, labels)}`, '--descheduling-interval=720h', `--kubeconfig=${accounts.head}`];
    args.push('--secure-port=0', '--v=4');
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_SOURCE, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const lines = () =>
      stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg: string; nextInSeconds?: number });
    try {
      // The wait is armed once the first cycle ends: Node's own timer would say TimeoutOverflowWarning
      // there and then and fire a millisecond later (37 cycles in 6 s before the fix).
      await waitFor('the wait for the next cycle', async () => lines().find((l) => l.msg === 'waiting for the next cycle'), { timeoutMs: 60_000 });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, stderr).toBe(0);
    expect(lines().filter((l) => l.msg === 'descheduling cycle done')).toHaveLength(1);
    expect(lines().find((l) => l.msg === 'waiting for the next cycle')!.nextInSeconds).toBeGreaterThan(720 * 3600 - 120);
    expect(stderr).not.toContain('TimeoutOverflowWarning');
    expect(await left(prefix)).toEqual([]);
  }, 90_000);

  it('a Lease its role does not grant (403: the v0.36.0 role names only "descheduler") ends it with exit 1 and why, instead of waiting forever', async () => {
    const args = ['descheduler', `--policy-config-file=${policyFile('other-lease', 10, { set: 'other-lease' })}`, '--descheduling-interval=1h'];
    args.push(
      `--kubeconfig=${accounts['v0.36.0']}`,
      '--leader-elect',
      '--leader-elect-resource-name=other',
      `--leader-elect-resource-namespace=${ns.name}`,
      '--secure-port=0',
    );
    const r = await runCli(args, { killAfterMs: 60_000 });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('the Lease request was refused');
    expect(r.stderr).toMatch(/403|forbidden/i);
  }, 90_000);

  it('a lease duration in fractions of a second (15500ms) is written in whole seconds, as client-go writes it, and the Lease is held', async () => {
    const args = ['descheduler', `--policy-config-file=${policyFile('fraction', 10, { set: 'fraction' })}`, '--descheduling-interval=1h'];
    args.push(`--kubeconfig=${accounts['v0.36.0']}`, '--leader-elect', '--leader-elect-lease-duration=15500ms', '--leader-elect-renew-deadline=10s');
    args.push('--leader-elect-retry-period=1s', `--leader-elect-resource-namespace=${ns.name}`, '--secure-port=0');
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_SOURCE, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const leases = sharedCluster().kubeConfig().makeApiClient(CoordinationV1Api);
    try {
      const spec = await waitFor(
        'the Lease held',
        async () => {
          if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${stderr}`);
          const s = (await leases.readNamespacedLease({ namespace: ns.name, name: 'descheduler' }).catch(() => undefined))?.spec;
          return s?.holderIdentity ? s : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(spec.leaseDurationSeconds).toBe(15);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, stderr).toBe(0);
  }, 90_000);

  it('--leader-elect-resource-name ../x exits 2 naming the flag, before any request', async () => {
    const r = await runCli(
      ['descheduler', '--policy-config-file=/nowhere.yaml', '--descheduling-interval=1h', '--leader-elect', '--leader-elect-resource-name=../x'],
      {
        killAfterMs: 30_000,
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--leader-elect-resource-name "../x": not a Lease name');
  });

  it('refuses an election without an interval, as the descheduler, with exit 2', async () => {
    const r = await runCli(['descheduler', '--policy-config-file=/nowhere.yaml', '--leader-elect'], { killAfterMs: 30_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('leaderElection must be used with deschedulingInterval');
  });
});
