import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { invoke } from '../../../functions/invoke.js';
import { sweep } from '../../../functions/sweep.js';
import { ReportWriter } from '../../../shared/kube/reports.js';
import { ANNOTATIONS, buildReports, replaceReports, ReportCollector, reportName, reportSelector } from '../../../shared/cleanup/reports/index.js';
import { runCli } from '../../harness/cli-process.js';
import { installOpenReportsCrds, sharedCluster, testNamespace } from '../../harness/index.js';
import { pingRequest, runPod, runtimeFor, send, serve } from '../functions/setup.js';

// Plans and audits as OpenReports on the real API server, with the CRDs of
// github.com/openreports/reports-api installed from the module: what invoke, the sweep in audit
// mode and the CLI write, read back as stored (so the CRD's validation and pruning had their
// say), replaced rather than accumulated, and never a removal.
//
// Each test runs its own profile: reports of a profile are replaced cluster-wide (every
// namespace's report of that profile is found by its labels), and the cluster is shared.

const a = testNamespace('rep-a');
const b = testNamespace('rep-b');
const c = testNamespace('rep-c');
const d = testNamespace('rep-d');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
const custom = () => sharedCluster().kubeConfig().makeApiClient(CustomObjectsApi);
const REPORTS = { group: 'openreports.io', version: 'v1alpha1', plural: 'reports' };

interface StoredReport {
  metadata: { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string>; resourceVersion: string; uid: string };
  source: string;
  summary: Record<string, number>;
  results?: {
    policy: string;
    rule: string;
    result: string;
    message: string;
    resources: { kind: string; name: string; namespace: string; uid?: string; apiVersion: string }[];
    properties: Record<string, string>;
    timestamp: { seconds: number; nanos: number };
    source: string;
    category: string;
    scored: boolean;
    severity: string;
  }[];
}

/** Failed pods removed by PodLifeTime in `namespaces`, at most `perNamespace` each (the rest kept: a limit). */
function policy(profile: string, namespaces: string[], perNamespace = 2) {
  return {
    apiVersion: 'descheduler/v1alpha2',
    kind: 'DeschedulerPolicy',
    maxNoOfPodsToEvictPerNamespace: perNamespace,
    profiles: [
      {
        name: profile,
        pluginConfig: [
          { name: 'DefaultEvictor', args: { podProtections: { defaultDisabled: ['FailedBarePods'] } } },
          { name: 'PodLifeTime', args: { states: ['Failed'], namespaces: { include: namespaces } } },
        ],
        plugins: { deschedule: { enabled: ['PodLifeTime'] } },
      },
    ],
  };
}

async function reportsOf(profile: string): Promise<StoredReport[]> {
  const list = (await custom().listCustomObjectForAllNamespaces({ ...REPORTS, labelSelector: reportSelector(profile) })) as { items: StoredReport[] };
  return list.items.sort((x, y) => x.metadata.namespace.localeCompare(y.metadata.namespace));
}

const read = (namespace: string, profile: string) =>
  custom().getNamespacedCustomObject({ ...REPORTS, namespace, name: reportName(profile) }) as Promise<StoredReport>;

const podsIn = async (namespace: string) => (await core().listNamespacedPod({ namespace })).items.map((p) => p.metadata!.name!).sort();

/** Per report: the pods it lists and how. */
const table = (r: StoredReport) => (r.results ?? []).map((x) => `${x.resources[0]!.name}:${x.result}`).sort();

beforeAll(async () => {
  await installOpenReportsCrds(sharedCluster());
}, 120_000);

describe('invoke with "report": true', () => {
  const profile = `inv-${process.pid}`;
  const uids: Record<string, string> = {};

  beforeAll(async () => {
    for (const n of ['a1', 'a2', 'a3']) uids[n] = (await runPod(core(), a.name, n, { exitCode: 2 })).metadata!.uid!;
    await runPod(core(), a.name, 'a-ok', { exitCode: 0 });
    uids.b1 = (await runPod(core(), b.name, 'b1', { exitCode: 1 })).metadata!.uid!;
  });

  it('writes one Report per namespace with exactly the pods it would remove (fail) and the kept ones (skip), as the API server stores them; removes nothing', async () => {
    const agent = serve(invoke, await runtimeFor(policy(profile, [a.name, b.name])));
    const res = await agent.post('/').send({ mode: 'plan', report: true });
    expect(res.status).toBe(200);
    expect(res.body.reports).toEqual({ written: 2, deleted: 0, failures: { transient: 0, refused: 0 } });
    const stored = await reportsOf(profile);
    expect(stored.map((r) => [r.metadata.namespace, r.metadata.name])).toEqual(
      [
        [a.name, reportName(profile)],
        [b.name, reportName(profile)],
      ].sort((x, y) => x[0]!.localeCompare(y[0]!)),
    );
    const ra = await read(a.name, profile);
    // Two of the three failed pods would be removed (the per-namespace limit), the third is kept; the Succeeded one is no one's business.
    expect(ra.summary).toEqual({ pass: 0, fail: 2, warn: 0, error: 0, skip: 1 });
    expect(
      table(ra)
        .map((s) => s.split(':')[1])
        .sort(),
    ).toEqual(['fail', 'fail', 'skip']);
    expect(
      table(ra)
        .map((s) => s.split(':')[0])
        .sort(),
    ).toEqual(['a1', 'a2', 'a3']);
    const fail = ra.results!.find((x) => x.result === 'fail')!;
    // Every field written survived the CRD's schema (nothing pruned, nothing refused).
    expect(fail).toEqual({
      source: 'kube-tidy',
      policy: profile,
      rule: 'PodLifeTime',
      category: 'cleanup',
      result: 'fail',
      severity: 'low',
      scored: true,
      timestamp: { seconds: expect.any(Number), nanos: 0 },
      resources: [{ apiVersion: 'v1', kind: 'Pod', namespace: a.name, name: fail.resources[0]!.name, uid: uids[fail.resources[0]!.name] }],
      message: expect.stringMatching(/\S/),
      properties: {
        resultID: expect.stringMatching(/^[0-9a-f]{40}$/),
        action: 'delete',
        outcome: 'deleted',
        dryRun: 'true',
        pass: res.body.summary.pass,
        mode: 'plan',
      },
    });
    const skip = ra.results!.find((x) => x.result === 'skip')!;
    expect(skip.message).toMatch(/^kept: .*maxNoOfPodsToEvictPerNamespace/);
    // Kept pods come streamed from the pass with their uid (one resource per pod in Policy Reporter) and do not score.
    expect(skip.resources[0]!.uid).toBe(uids[skip.resources[0]!.name]);
    expect(skip).toMatchObject({ severity: 'info', scored: false });
    expect(ra.source).toBe('kube-tidy');
    expect(ra.metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'kube-tidy', 'reports.kube-tidy.dev/policy': profile });
    expect(ra.metadata.annotations).toMatchObject({ [ANNOTATIONS.policy]: profile, [ANNOTATIONS.mode]: 'plan', [ANNOTATIONS.leftOut]: '0' });
    const rb = await read(b.name, profile);
    expect(table(rb)).toEqual(['b1:fail']);
    expect(await podsIn(a.name)).toEqual(['a-ok', 'a1', 'a2', 'a3']);
    expect(await podsIn(b.name)).toEqual(['b1']);
  });

  it('a second plan REPLACES the reports: same object, the new pods only, and a namespace with nothing left loses its report', async () => {
    const before = await read(a.name, profile);
    await core().deleteNamespacedPod({ namespace: a.name, name: 'a1', gracePeriodSeconds: 0 });
    await core().deleteNamespacedPod({ namespace: b.name, name: 'b1', gracePeriodSeconds: 0 });
    await runPod(core(), a.name, 'a4', { exitCode: 3 });
    const agent = serve(invoke, await runtimeFor(policy(profile, [a.name, b.name], 5)));
    const res = await agent.post('/').send({ report: true });
    expect(res.status).toBe(200);
    expect(res.body.reports).toMatchObject({ written: 1, deleted: 1 });
    const stored = await reportsOf(profile);
    expect(stored.map((r) => r.metadata.namespace)).toEqual([a.name]);
    const ra = stored[0]!;
    expect(ra.metadata.uid).toBe(before.metadata.uid);
    expect(table(ra)).toEqual(['a2:fail', 'a3:fail', 'a4:fail']);
    expect(ra.summary).toEqual({ pass: 0, fail: 3, warn: 0, error: 0, skip: 0 });
    expect(ra.metadata.annotations[ANNOTATIONS.pass]).toBe(res.body.summary.pass);
  });

  it('without "report" nothing is written', async () => {
    const agent = serve(invoke, await runtimeFor(policy(`${profile}-off`, [a.name])));
    const res = await agent.post('/').send({ mode: 'plan' });
    expect(res.status).toBe(200);
    expect(res.body.reports).toBeUndefined();
    expect(await reportsOf(`${profile}-off`)).toEqual([]);
  });

  it('a labelSelector with "report" is refused (400) before anything is read: a report would replace its namespace’s with a part of it', async () => {
    const agent = serve(invoke, await runtimeFor(policy(`${profile}-label`, [a.name])));
    const res = await agent.post('/').send({ mode: 'plan', report: true, labelSelector: 'app=x' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/body\.report: .*labelSelector/);
    expect(await reportsOf(`${profile}-label`)).toEqual([]);
  });

  it('writes reports under DRY_RUN too (they change no workload), and never in a protected namespace', async () => {
    const p = `${profile}-dry`;
    await runPod(core(), d.name, 'd1', { exitCode: 2 });
    const rt = await runtimeFor(policy(p, [a.name, d.name], 5), { DRY_RUN: 'true', PROTECTED_NAMESPACES: `kube-system,${d.name}` });
    const res = await serve(invoke, rt).post('/').send({ report: true });
    expect(res.status).toBe(200);
    expect((await reportsOf(p)).map((r) => r.metadata.namespace)).toEqual([a.name]);
    expect(await podsIn(d.name)).toEqual(['d1']);
  });
});

describe('a strategy enabled in two profiles', () => {
  const e = testNamespace('rep-e');
  const f = testNamespace('rep-f');

  it('each pod is reported under the profile that selected it, not the first profile enabling its strategy', async () => {
    const [first, second] = [`first-${process.pid}`, `second-${process.pid}`];
    const one = policy(first, [e.name]);
    const two = policy(second, [f.name]).profiles[0]!;
    const both = { ...one, profiles: [...one.profiles, two] };
    await runPod(core(), e.name, 'e1', { exitCode: 1 });
    await runPod(core(), f.name, 'f1', { exitCode: 1 });
    const res = await serve(invoke, await runtimeFor(both))
      .post('/')
      .send({ mode: 'plan', report: true });
    expect(res.status).toBe(200);
    expect((await reportsOf(first)).map((r) => [r.metadata.namespace, table(r)])).toEqual([[e.name, ['e1:fail']]]);
    const [r] = await reportsOf(second);
    expect([r!.metadata.namespace, table(r!), r!.results![0]!.policy]).toEqual([f.name, ['f1:fail'], second]);
  });
});

describe('the sweep in audit mode (SWEEP_MODE=audit)', () => {
  const profile = `audit-${process.pid}`;

  it('plans through the dry run, writes a report per namespace and removes nothing', async () => {
    for (const n of ['c1', 'c2']) await runPod(core(), c.name, n, { exitCode: 2 });
    const agent = serve(sweep, await runtimeFor(policy(profile, [c.name], 5), { SWEEP_MODE: 'audit' }));
    const res = await send(agent, pingRequest());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'audited', dryRun: true, reports: { written: 1, deleted: 0 } });
    const rc = await read(c.name, profile);
    expect(table(rc)).toEqual(['c1:fail', 'c2:fail']);
    expect(rc.metadata.annotations[ANNOTATIONS.mode]).toBe('audit');
    expect(rc.results!.every((r) => r.properties.dryRun === 'true')).toBe(true);
    expect(await podsIn(c.name)).toEqual(['c1', 'c2']);
  });

  it('a shard is refused in audit mode (another instance would act on it), even one DRY_RUN would take', async () => {
    // DRY_RUN alone skips the shard-plan check (a dry run acts on nothing): only the audit refuses it here.
    const agent = serve(sweep, await runtimeFor(policy(profile, [c.name], 5), { SWEEP_MODE: 'audit', DRY_RUN: 'true' }));
    const res = await agent
      .post('/')
      .set({ 'ce-specversion': '1.0', 'ce-id': 'x', 'ce-source': 'test', 'ce-type': 'dev.kube-tidy.sweep.shard.v1', 'content-type': 'application/json' })
      .send({ pass: 'p', index: 0, of: 1, pods: [{ namespace: c.name, name: 'c1', uid: 'u' }] });
    expect(res.status).toBe(422);
  });

  it('without audit mode, the same sweep removes and writes no report', async () => {
    const p = `${profile}-run`;
    const agent = serve(sweep, await runtimeFor(policy(p, [c.name], 5)));
    const res = await send(agent, pingRequest());
    expect(res.status).toBe(200);
    expect(res.body.reports).toBeUndefined();
    expect(await reportsOf(p)).toEqual([]);
    expect(await podsIn(c.name)).toEqual([]);
  });
});

describe('the size cap on the real API server', () => {
  const big = testNamespace('rep-big');

  it('a report at the cap (1000 results of 5000 selected, 5000 kept) is accepted whole and read back as written', async () => {
    const profile = `big-${process.pid}`;
    const collector = new ReportCollector({ profileOf: () => profile, protectedNamespaces: [] });
    const reason = 'pod age 30h12m exceeds maxPodLifeTimeSeconds 86400 (24h0m0s)';
    for (let i = 0; i < 5000; i++)
      collector.selected({
        namespace: big.name,
        name: `train-${i}-abcde`,
        uid: `0b6f0e3c-1d7e-4d5a-9a53-${String(i).padStart(12, '0')}`,
        strategy: 'PodLifeTime',
        action: 'delete',
        outcome: 'deleted',
        dryRun: true,
        reason,
      });
    for (let i = 0; i < 5000; i++)
      collector.kept({ namespace: big.name, name: `serve-${i}`, strategy: 'PodLifeTime', reason: 'limit maxNoOfPodsToEvictPerNamespace reached' });
    const built = buildReports(collector.contents(), { pass: 'p-big', mode: 'audit', now: Date.now() });
    const started = Date.now();
    const out = await replaceReports(new ReportWriter(custom(), ['kube-system']), built, { profiles: [profile] });
    const ms = Date.now() - started;
    expect(out).toEqual({ written: 1, deleted: 0, failures: { transient: 0, refused: 0 } });
    const stored = await read(big.name, profile);
    expect(stored.results).toHaveLength(1000);
    expect(stored.summary).toEqual({ pass: 0, fail: 5000, warn: 0, error: 0, skip: 5000 });
    expect(stored.metadata.annotations[ANNOTATIONS.leftOut]).toBe('9000');
    expect(stored.results).toEqual(built[0]!.results);
    console.log(`[reports] one report of ${Buffer.byteLength(JSON.stringify(built[0]))} bytes applied in ${ms} ms`);
  });
});

describe('kube-tidy plan --kubeconfig … --report', () => {
  const cliNs = testNamespace('rep-cli');
  /** `kube-tidy plan` of `file` in the CLI's namespace, JSON lines. The shared cluster holds many tests' ledgers: it names its own (a plan defers what a run would). */
  const planIn = (file: string, ...extra: string[]) =>
    runCli([
      'plan',
      '--kubeconfig',
      sharedCluster().kubeconfigPath,
      '--policy',
      file,
      '-n',
      cliNs.name,
      '--brakes-namespace',
      cliNs.name,
      ...extra,
      '-o',
      'json',
    ]);
  const profile = `cli-${process.pid}`;

  it('writes the reports of the plan and changes nothing else', async () => {
    await runPod(core(), cliNs.name, 'x1', { exitCode: 2 });
    const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-rep-'));
    const file = join(dir, 'policy.json');
    writeFileSync(file, JSON.stringify(policy(profile, [cliNs.name], 5)));
    const ran = await planIn(file, '--report');
    expect(ran.stderr).toMatch(/reports: 1 written, 0 deleted/);
    expect(ran.code).toBe(0);
    const r = await read(cliNs.name, profile);
    expect(table(r)).toEqual(['x1:fail']);
    expect(r.metadata.annotations[ANNOTATIONS.mode]).toBe('plan');
    expect(await podsIn(cliNs.name)).toEqual(['x1']);
  });

  it('without --report, none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-rep-'));
    const file = join(dir, 'policy.json');
    writeFileSync(file, JSON.stringify(policy(`${profile}-off`, [cliNs.name], 5)));
    const ran = await planIn(file);
    expect(ran.code).toBe(0);
    expect(await reportsOf(`${profile}-off`)).toEqual([]);
  });
});
