// `kube-tidy plan --kubeconfig`, `plan --against` and `run --yes` with kubeTidy.objects rules,
// as a person runs them: the CLI as a child process against the shared real cluster, finished
// Jobs made Complete by the real Job controller (kwok ends their pods with exit code 0), checked
// against the cluster itself and the API server's audit log, not against the CLI's own words.
import { jsonLines, runCli } from '../../harness/cli-process.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  EXIT_CODE_ANNOTATION,
  installOpenReportsCrds,
  notControlPlane,
  sharedAudit,
  sharedCluster,
  testNamespace,
  waitFor,
  type AuditWrite,
} from '../../harness/index.js';

const ns = testNamespace('cli-objects');
const cluster = sharedCluster();
const core = () => cluster.kubeConfig().makeApiClient(CoreV1Api);
const batch = () => cluster.kubeConfig().makeApiClient(BatchV1Api);
const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-cli-objects-'));

// Jobs by label: rule=delete goes (one per hour: a rate on Jobs in the namespace), rule=report is
// only reported, rule=later is selected by a rule whose minAge it has not reached.
const JOBS = { 'gone-1': 'delete', 'gone-2': 'delete', seen: 'report', later: 'later' } as const;
const only = (rule: string) => ({ namespaces: { include: [ns.name] }, labelSelector: { matchLabels: { rule } } });
// A function: the namespace's name is known once the file's setup made it.
const rules = () => ({
  delete: { name: 'jobs-delete', kind: 'Job', minAge: '0s', mode: 'delete', ...only('delete') },
  report: { name: 'jobs-report', kind: 'Job', minAge: '0s', ...only('report') },
  later: { name: 'jobs-later', kind: 'Job', minAge: '1h', mode: 'delete', ...only('later') },
});

const policy = (objects: unknown[]) =>
  stringify({
    apiVersion: 'descheduler/v1alpha2',
    kind: 'DeschedulerPolicy',
    // A pod profile that selects nothing here (the Jobs' pods Succeed): the pods' pass runs first, as always.
    profiles: [
      {
        name: 'failed',
        pluginConfig: [{ name: 'RemoveFailedPods', args: { namespaces: { include: [ns.name] } } }],
        plugins: { deschedule: { enabled: ['RemoveFailedPods'] } },
      },
    ],
    kubeTidy: { brakes: { rates: [{ max: 1, per: '1h', scope: 'namespace', kinds: ['Job'] }] }, objects },
  });

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

let full: string;
let base: string[];
const jobsLeft = async () =>
  (await batch().listNamespacedJob({ namespace: ns.name })).items
    .filter((j) => !j.metadata?.deletionTimestamp)
    .map((j) => j.metadata!.name!)
    .sort();
const podsOf = async (job: string) => (await core().listNamespacedPod({ namespace: ns.name, labelSelector: `job-name=${job}` })).items.length;
const writesHere = (writes: AuditWrite[]) => writes.filter((w) => w.namespace === ns.name && notControlPlane(w));

async function finishedJob(name: string, rule: string): Promise<void> {
  await batch().createNamespacedJob({
    namespace: ns.name,
    body: {
      metadata: { name, labels: { rule } },
      spec: {
        template: {
          metadata: { annotations: { [EXIT_CODE_ANNOTATION]: '0' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
        },
      },
    },
  });
  await waitFor(
    `${name} Complete`,
    async () =>
      (await batch().readNamespacedJob({ namespace: ns.name, name })).status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')
        ? true
        : undefined,
    { timeoutMs: 90_000 },
  );
}

beforeAll(async () => {
  full = file('policy.yaml', policy([rules().delete, rules().report, rules().later]));
  // The deployed ledger is found as the CLI finds it; named here so this file's Job budget is its own.
  base = ['--kubeconfig', cluster.kubeconfigPath, '--namespace', ns.name, '--brakes-namespace', ns.name];
  await Promise.all(Object.entries(JOBS).map(([name, rule]) => finishedJob(name, rule)));
}, 180_000);

describe('kube-tidy plan --kubeconfig with object rules', () => {
  it('shows what each rule would report or delete, what the brakes hold back and what is not yet eligible, and deletes nothing', async () => {
    const audit = sharedAudit();
    const mark = audit.mark();
    const r = await runCli(['plan', ...base, '--policy', full, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const objects = jsonLines(r).filter((l) => typeof l.type === 'string');
    const byName = Object.fromEntries(objects.map((l) => [l.name, l]));
    expect(Object.keys(byName).sort()).toEqual(['gone-1', 'gone-2', 'later', 'seen']);
    // The rate lets one Job go per hour: one would be deleted, the other deferred.
    const gone = [byName['gone-1']!, byName['gone-2']!];
    expect(gone.map((l) => l.outcome).sort()).toEqual(['deferred', 'deleted']);
    for (const l of gone) expect(l).toMatchObject({ type: 'object', kind: 'Job', rule: 'jobs-delete', mode: 'delete', dryRun: true });
    expect(byName.seen).toMatchObject({ type: 'object', rule: 'jobs-report', mode: 'report', outcome: 'reported' });
    expect(byName.later).toMatchObject({ type: 'object-eligible', rule: 'jobs-later', mode: 'delete' });
    const at = Date.parse(String(byName.later!.at));
    expect(at - Date.now()).toBeGreaterThan(50 * 60_000);
    expect(r.stderr).toMatch(/objects: 3 rules, 4 objects listed: 3 selected \(.*1 would be deleted.*\), 0 kept, 1 not yet eligible/);
    // Nothing changed: every Job is there, and every write in the namespace was a dry run.
    expect(await jobsLeft()).toEqual(Object.keys(JOBS).sort());
    const writes = writesHere(await audit.settledSince(mark));
    expect(writes.filter((w) => w.resource === 'jobs').map((w) => [w.verb, w.dryRun])).toEqual([['delete', true]]);
    expect(writes.filter((w) => !w.dryRun)).toEqual([]);
  }, 120_000);

  it('keeps what a rule selects in a namespace --protected-namespaces names, and says so in the words the person used', async () => {
    const r = await runCli(['plan', ...base, '--policy', full, '--protected-namespaces', ns.name, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const kept = jsonLines(r).filter((l) => l.type === 'object-kept');
    expect(kept.map((l) => String(l.name)).sort()).toEqual(['gone-1', 'gone-2', 'seen']);
    for (const l of kept) expect(l.reason).toBe('in a protected namespace (--protected-namespaces)');
  }, 120_000);

  it('prints the objects as a table after the pods with -o table', async () => {
    const r = await runCli(['plan', ...base, '--policy', full, '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^nothing to do: the policy selects no pod\n\nKIND +OBJECT +RULE +MODE +RESULT +REASON\n/);
    expect(r.stdout).toMatch(new RegExp(`Job +${ns.name}/gone-\\d +jobs-delete +delete +deferred: kubeTidy\\.brakes\\.rates\\[0\\]`));
    expect(r.stdout).toMatch(new RegExp(`Job +${ns.name}/seen +jobs-report +report +reported \\(report rule: nothing removed\\)`));
    expect(r.stdout).toMatch(new RegExp(`Job +${ns.name}/later +jobs-later +delete +not yet +eligible at \\S+ \\(in [\\dhm]+\\)`));
  }, 120_000);
});

describe('kube-tidy plan --report with object rules', () => {
  beforeAll(() => installOpenReportsCrds(cluster), 120_000);

  it("writes each rule's Report in the namespace, as the sweep does, and deletes nothing", async () => {
    const r = await runCli(['plan', ...base, '--policy', full, '--report', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/object reports: 2 written/);
    const read = (rule: string) =>
      cluster
        .kubeConfig()
        .makeApiClient(CustomObjectsApi)
        .getNamespacedCustomObject({
          group: 'openreports.io',
          version: 'v1alpha1',
          plural: 'reports',
          namespace: ns.name,
          name: `kube-tidy-objects.${rule}`,
        }) as Promise<{
        results: { policy: string; resources: { name: string }[] }[];
      }>;
    expect((await read('jobs-report')).results.map((x) => x.resources[0]!.name)).toEqual(['seen']);
    expect((await read('jobs-delete')).results.map((x) => x.resources[0]!.name).sort()).toEqual(['gone-1', 'gone-2']);
    expect(await jobsLeft()).toEqual(Object.keys(JOBS).sort());
  }, 120_000);
});

describe('kube-tidy plan --against with object rules', () => {
  it('shows the Jobs the new policy newly deletes, exits 3 over --max-new, and writes nothing, not even a dry run', async () => {
    const old = file('old.yaml', policy([rules().report]));
    const audit = sharedAudit();
    const mark = audit.mark();
    const over = await runCli(['plan', ...base, '--policy', full, '--against', old, '--max-new', '1', '-o', 'json']);
    expect(over.code, over.stderr).toBe(3);
    const lines = jsonLines(over);
    const changes = lines.filter((l) => String(l.type).startsWith('object-') && l.type !== 'object-count');
    expect(changes.map((l) => [l.type, l.name, l.newlyDeleted]).sort()).toEqual([
      ['object-new', 'gone-1', true],
      ['object-new', 'gone-2', true],
    ]);
    expect(lines.find((l) => l.type === 'object-count')).toMatchObject({ kind: 'Job', considered: 4, before: 1, after: 3, newlyDeleted: 2, exceeded: true });
    expect(lines.at(-1)).toMatchObject({ type: 'total', exceeded: false });
    expect(over.stderr).toMatch(/newly deletes 2 Job objects, more than --max-new 1 allows \(exit 3\)/);
    const within = await runCli(['plan', ...base, '--policy', full, '--against', old, '--max-new', '2', '-o', 'json']);
    expect(within.code, within.stderr).toBe(0);
    expect(writesHere(await audit.settledSince(mark))).toEqual([]);
    expect(await jobsLeft()).toEqual(Object.keys(JOBS).sort());
  }, 120_000);

  it('a Job newly selected by a report rule is shown but not counted: it removes nothing', async () => {
    const old = file('old-delete-only.yaml', policy([rules().delete, rules().later]));
    const r = await runCli(['plan', ...base, '--policy', full, '--against', old, '--max-new', '0', '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`new +Job +${ns.name}/seen +- +report \\(jobs-report\\)`));
    expect(r.stderr).toMatch(/objects: Job 1 newly selected \(0 newly deleted\)/);
  }, 120_000);
});

describe('kube-tidy run --yes with object rules', () => {
  it("deletes the delete rule's Job (its pods with it, Background) within the brakes, and leaves the report rule's", async () => {
    const r = await runCli(['run', ...base, '--policy', full, '--yes', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const results = jsonLines(r).filter((l) => l.type === 'object');
    const deleted = results.filter((l) => l.outcome === 'deleted').map((l) => String(l.name));
    expect(deleted).toHaveLength(1);
    expect(results.filter((l) => l.outcome === 'deferred')).toHaveLength(1);
    expect(results.find((l) => l.name === 'seen')).toMatchObject({ outcome: 'reported', dryRun: false });
    const [gone] = deleted as [string];
    const stays = Object.keys(JOBS).filter((n) => n !== gone);
    await waitFor('the Job and its pods gone', async () => ((await jobsLeft()).includes(gone) || (await podsOf(gone)) > 0 ? undefined : true), {
      timeoutMs: 60_000,
    });
    expect(await jobsLeft()).toEqual(stays.sort());
    for (const name of stays) expect(await podsOf(name), name).toBeGreaterThan(0);
    // Charged to the ledger the command chose, under the Job kind: a second run defers the other.
    expect(r.stderr).toContain(`brakes: charging the ledger ${ns.name}/kube-tidy-brakes (--brakes-namespace)`);
    const again = await runCli(['run', ...base, '--policy', full, '--yes', '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(
      jsonLines(again)
        .filter((l) => l.rule === 'jobs-delete')
        .map((l) => l.outcome),
    ).toEqual(['deferred']);
    expect(await jobsLeft()).toEqual(stays.sort());
  }, 180_000);
});
