// `kube-tidy plan --kubeconfig` and `kube-tidy run` as a person runs them: the CLI as a child
// process with a kubeconfig file for the shared real cluster, checked against the cluster
// itself and the API server's audit log (what was sent), not against the CLI's own words.
import type { PodDecision } from '../../../shared/notify/types.js';
import { receiver } from '../../fixtures/events/receiver.js';
import { jsonLines, runCli, type Ran } from '../../harness/cli-process.js';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, PolicyV1Api } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAsync } from '../../../shared/hosts/cli/main.js';
import { notControlPlane, sharedAudit, sharedCluster, testNamespace, waitFor, type AuditWrite } from '../../harness/index.js';
import { runPod } from '../functions/setup.js';

const ns = testNamespace('cli-live');
const cluster = sharedCluster();
const core = () => cluster.kubeConfig().makeApiClient(CoreV1Api);
const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-cli-live-'));
const EVICT = 'descheduler.alpha.kubernetes.io/evict';

// Two profiles: Failed pods go (DELETE); Running pods older than 1 s go too, but only the one
// annotated for eviction (bare pods are otherwise protected), and that one is under a
// PodDisruptionBudget that allows no disruption.
const policy = (namespace: string) => ({
  apiVersion: 'descheduler/v1alpha2',
  kind: 'DeschedulerPolicy',
  profiles: [
    {
      name: 'failed',
      pluginConfig: [
        { name: 'DefaultEvictor', args: { podProtections: { defaultDisabled: ['FailedBarePods'] } } },
        { name: 'PodLifeTime', args: { states: ['Failed'], exitCodes: ['1-255'], namespaces: { include: [namespace] } } },
      ],
      plugins: { deschedule: { enabled: ['PodLifeTime'] } },
    },
    {
      name: 'running',
      pluginConfig: [{ name: 'PodLifeTime', args: { states: ['Running'], maxPodLifeTimeSeconds: 1, namespaces: { include: [namespace] } } }],
      plugins: { deschedule: { enabled: ['PodLifeTime'] } },
    },
  ],
});

function file(name: string, content: string, mode = 0o644): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  chmodSync(path, mode);
  return path;
}

/** A kubeconfig for the shared cluster whose user is a credential plugin that fails as one does when not logged in. */
function failingPluginKubeconfig(): string {
  const command = file('not-logged-in.sh', '#!/bin/sh\necho "error: not logged in" >&2\nexit 1\n', 0o755);
  const c = cluster.kubeConfig().getCurrentCluster()!;
  return file(
    'plugin-fails.yaml',
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: c.server, 'certificate-authority-data': c.caData } }],
      users: [{ name: 'u', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command, interactiveMode: 'Never' } } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    }),
  );
}

const cli = (...args: string[]): Promise<Ran> => runCli(args);

async function inProcess(...args: string[]): Promise<Ran> {
  const started = Date.now();
  let stdout = '';
  let stderr = '';
  const code = await runAsync(args, { out: (s) => (stdout += s), err: (s) => (stderr += s) });
  return { code, stdout, stderr, ms: Date.now() - started };
}

const lines = jsonLines;
const writesHere = (writes: AuditWrite[]) => writes.filter((w) => w.namespace === ns.name && notControlPlane(w));
const podsLeft = async () =>
  (await core().listNamespacedPod({ namespace: ns.name })).items
    .filter((p) => !p.metadata?.deletionTimestamp)
    .map((p) => p.metadata!.name!)
    .sort();

const FAILED = ['failed-0', 'failed-1', 'failed-2', 'failed-3', 'failed-4'];
let policyFile: string;
let base: string[];
let planned: Record<string, unknown>[] = [];

beforeAll(async () => {
  policyFile = file('policy.yaml', stringify(policy(ns.name)));
  base = ['--kubeconfig', cluster.kubeconfigPath, '--namespace', ns.name, '--policy', policyFile];
  for (const name of FAILED) await runPod(core(), ns.name, name, { exitCode: 2 });
  await runPod(core(), ns.name, 'ok', { exitCode: 0 });
  await runPod(core(), ns.name, 'plain');
  await runPod(core(), ns.name, 'guarded', { labels: { app: 'guarded' }, annotations: { [EVICT]: 'true' } });
  const pdb = cluster.kubeConfig().makeApiClient(PolicyV1Api);
  await pdb.createNamespacedPodDisruptionBudget({
    namespace: ns.name,
    body: { metadata: { name: 'zero' }, spec: { maxUnavailable: 0, selector: { matchLabels: { app: 'guarded' } } } },
  });
  await waitFor(
    'the budget observed',
    async () => (await pdb.readNamespacedPodDisruptionBudget({ namespace: ns.name, name: 'zero' })).status?.observedGeneration === 1,
  );
  await new Promise((r) => setTimeout(r, 1100)); // the Running pods past maxPodLifeTimeSeconds
});

describe('kube-tidy plan --kubeconfig', () => {
  it('prints JSON lines when piped, over several pages, shows the PDB refusal, and changes nothing', async () => {
    const audit = sharedAudit();
    const mark = audit.mark();
    const r = await cli('plan', ...base, '--chunk-size', '2');
    expect(r.code, r.stderr).toBe(0);
    planned = lines(r);
    expect(planned.map((l) => l.name).sort()).toEqual([...FAILED, 'guarded']);
    for (const l of planned.filter((l) => l.name !== 'guarded'))
      expect(l).toMatchObject({ strategy: 'PodLifeTime', action: 'delete', outcome: 'deleted', dryRun: true });
    const guarded = planned.find((l) => l.name === 'guarded')!;
    expect(guarded).toMatchObject({ action: 'evict', outcome: 'blocked', dryRun: true });
    expect(String(guarded.message)).toMatch(/disruption budget/i);
    // Progress while listing, and a summary naming the pages (8 pods, 2 a page).
    expect(r.stderr).toMatch(/listing: \d+ pods in 2 pages/);
    const pages = Number(/in (\d+) pages/.exec(r.stderr.split('\n').find((l) => l.startsWith('plan (dry run'))!)?.[1]);
    expect(pages).toBeGreaterThanOrEqual(4);
    // Nothing changed: every pod is there, and every write the API server saw was a dry run.
    expect(await podsLeft()).toEqual([...FAILED, 'guarded', 'ok', 'plain'].sort());
    const writes = writesHere(await audit.settledSince(mark));
    expect(writes.length).toBe(6);
    expect(writes.filter((w) => !w.dryRun)).toEqual([]);
    expect(writes.filter((w) => w.resource === 'pods' && w.subresource === 'eviction').map((w) => [w.name, w.code])).toEqual([['guarded', 429]]);
  });

  it('prints a table with -o table, in words', async () => {
    const r = await cli('plan', ...base, '-o', 'table');
    expect(r.code, r.stderr).toBe(0);
    const [head, ...rows] = r.stdout.trim().split('\n');
    expect(head).toMatch(/^POD\s+STRATEGY\s+ACTION\s+RESULT\s+REASON$/);
    expect(rows).toHaveLength(6);
    expect(rows.find((l) => l.startsWith(`${ns.name}/failed-0 `))).toMatch(/PodLifeTime\s+delete\s+would delete\s+PodLifeTime: /);
    expect(rows.find((l) => l.startsWith(`${ns.name}/guarded `))).toMatch(/evict\s+blocked: .*disruption budget/i);
  });

  it('with EVENTS_SINK set, sends each decision and the pass’s summary as CloudEvents (origin cli, dry run), all delivered by the time it exits', async () => {
    const sink = await receiver();
    try {
      const r = await runCli(['plan', ...base], { env: { EVENTS_SINK: sink.url } });
      expect(r.code, r.stderr).toBe(0);
      const rows = lines(r);
      // Sent before the process exited: nothing is awaited here.
      const pods = sink.events.filter((e) => e.type.startsWith('dev.kube-tidy.pod.'));
      expect(pods.map((e) => (e.data as PodDecision).name).sort()).toEqual(rows.map((x) => x.name as string).sort());
      expect(pods.every((e) => e.source === 'kube-tidy/cli' && e.dryrun === 'true' && (e.data as PodDecision).origin === 'cli')).toBe(true);
      expect(sink.events.at(-1)).toMatchObject({ type: 'dev.kube-tidy.pass.completed.v1', data: { kind: 'cli', dryRun: true } });
    } finally {
      sink.close();
    }
  });

  it('reads the policy from a ConfigMap when told which', async () => {
    await core().createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: 'tidy-policy' }, data: { 'policy.yaml': stringify(policy(ns.name)) } },
    });
    const r = await inProcess(
      'plan',
      '--kubeconfig',
      cluster.kubeconfigPath,
      '--namespace',
      ns.name,
      '--policy-configmap',
      `${ns.name}/tidy-policy`,
      '-o',
      'json',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r)).toHaveLength(6);
  });
});

describe('kube-tidy run', () => {
  it('without --yes exits 2 with the reason and sends nothing', async () => {
    const audit = sharedAudit();
    const mark = audit.mark();
    const r = await cli('run', ...base);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('run deletes and evicts pods: add --yes');
    expect(r.stdout).toBe('');
    expect(writesHere(await audit.settledSince(mark))).toEqual([]);
    expect(await podsLeft()).toHaveLength(8);
  });

  it('with --yes deletes exactly the pods the plan showed would go, and the budget holds', async () => {
    expect(planned.length).toBe(6);
    const audit = sharedAudit();
    const mark = audit.mark();
    const r = await cli('run', ...base, '--yes', '-o', 'json', '--chunk-size', '3');
    expect(r.code, r.stderr).toBe(0);
    const ran = lines(r);
    expect(ran.map((l) => [l.name, l.outcome, l.dryRun])).toEqual(planned.map((l) => [l.name, l.outcome, false]));
    const sent = writesHere(await audit.settledSince(mark)).filter((w) => w.resource === 'pods');
    const wouldGo = planned
      .filter((l) => l.outcome === 'deleted')
      .map((l) => l.name)
      .sort();
    // The CLI's own deletes (kwok, standing in for the kubelet, also deletes a pod it sees terminating).
    const bySelf = sent.filter((w) => w.user !== 'kwok');
    expect(
      bySelf
        .filter((w) => w.verb === 'delete' && !w.dryRun && w.code === 200)
        .map((w) => w.name)
        .sort(),
    ).toEqual(wouldGo);
    expect(sent.every((w) => !w.dryRun)).toBe(true);
    expect(await podsLeft()).toEqual(['guarded', 'ok', 'plain']);
  });
});

describe('kube-tidy plan/run: bad input exits 2 naming it, a cluster that cannot be read exits 1', () => {
  it.each([
    {
      name: 'a kubeconfig path that does not exist',
      args: () => ['plan', '--kubeconfig', join(dir, 'nope.yaml'), '--policy', policyFile],
      code: 2,
      message: 'nope.yaml: no such file',
    },
    {
      name: 'an invalid policy, with the field path',
      args: () => [
        'plan',
        '--kubeconfig',
        cluster.kubeconfigPath,
        '--policy',
        file(
          'bad.yaml',
          stringify({ ...policy('x'), profiles: [{ ...policy('x').profiles[0], pluginConfig: [{ name: 'PodLifeTime', args: { states: ['Nope'] } }] }] }),
        ),
      ],
      code: 2,
      message: 'profiles[0].pluginConfig[0].args.states[0]',
    },
    {
      name: 'a kubeconfig that is not YAML',
      args: () => ['plan', '--kubeconfig', file('garbled.yaml', 'clusters: [\n  - {name: c\n'), '--policy', policyFile],
      code: 2,
      message: 'garbled.yaml: not a readable kubeconfig',
    },
    {
      name: 'an unknown context',
      args: () => ['plan', '--kubeconfig', cluster.kubeconfigPath, '--context', 'prod', '--policy', policyFile],
      code: 2,
      message: 'no context "prod"',
    },
    {
      name: 'a policy ConfigMap that does not exist',
      args: () => ['plan', '--kubeconfig', cluster.kubeconfigPath, '--policy-configmap', `${ns.name}/nope`],
      code: 2,
      message: 'no such ConfigMap in the cluster',
    },
    { name: 'a run without --kubeconfig', args: () => ['run', '--yes', '--policy', policyFile], code: 2, message: 'missing --kubeconfig' },
    {
      name: 'an unknown output format',
      args: () => ['plan', '--kubeconfig', cluster.kubeconfigPath, '-o', 'yaml'],
      code: 2,
      message: '-o "yaml": expected json or table',
    },
    { name: 'a chunk size of 0', args: () => ['plan', '--kubeconfig', cluster.kubeconfigPath, '--chunk-size', '0'], code: 2, message: '--chunk-size "0"' },
    {
      name: 'an API server that does not answer',
      args: () => [
        'plan',
        '--kubeconfig',
        file(
          'down.yaml',
          stringify({
            apiVersion: 'v1',
            kind: 'Config',
            clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
            users: [{ name: 'u', user: { token: 't' } }],
            contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
            'current-context': 'c',
          }),
        ),
        '--policy',
        policyFile,
      ],
      code: 1,
      message: 'list pods',
    },
    {
      // The input is fine: without a credential the cluster could not be read (it exited 2 before).
      name: 'a credential plugin that fails',
      args: () => ['plan', '--kubeconfig', failingPluginKubeconfig(), '--policy', policyFile],
      code: 1,
      message: 'could not authenticate to the cluster: the credential plugin',
    },
  ])('$name', async ({ args, code, message }) => {
    const r = await inProcess(...args());
    expect(r.code, r.stderr).toBe(code);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
  });

  it('the program exits 1 for a credential plugin that fails as a process too, naming the plugin and what it said', async () => {
    const r = await cli('plan', '--kubeconfig', failingPluginKubeconfig(), '--policy', policyFile);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/could not authenticate to the cluster: the credential plugin ".*not-logged-in\.sh" failed: error: not logged in \(exit code 1\)/);
    expect(r.stdout).toBe('');
  });

  it('the program exits 2 for a bad kubeconfig path as a process too', async () => {
    const r = await cli('run', '--kubeconfig', join(dir, 'missing.yaml'), '--yes', '--policy', policyFile);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing.yaml: no such file');
  });
});
