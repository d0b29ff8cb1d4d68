// `kube-tidy plan --kubeconfig FILE --policy NEW --against CURRENT [--max-new N|P%]` as CI runs
// it: the CLI as a child process against the shared real cluster. Checked against the pods
// themselves (exact lists), the gate's exit code, and the API server's audit log: a diff
// sends no write at all, not even a dry run.
import { jsonLines, runCli } from '../../harness/cli-process.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notControlPlane, sharedAudit, sharedCluster, testNamespace } from '../../harness/index.js';
import { runPod } from '../functions/setup.js';

const a = testNamespace('cli-diff-a');
const b = testNamespace('cli-diff-b');
const cluster = sharedCluster();
const core = () => cluster.kubeConfig().makeApiClient(CoreV1Api);
const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-cli-diff-'));
// Only this file's pods are listed (the shared cluster has others'): podsSeen is exact.
const RUN = `run-${randomBytes(3).toString('hex')}`;
const DEPLOYED = { namespace: 'kube-tidy', name: 'kube-tidy-policy' };

// Bare Failed pods are protected by default; these profiles lift that, as an operator would.
const profile = (name: string, exitCodes: number[], namespace: string, labelSelector?: Record<string, string>) => ({
  name,
  pluginConfig: [
    { name: 'DefaultEvictor', args: { podProtections: { defaultDisabled: ['FailedBarePods'] } } },
    {
      name: 'PodLifeTime',
      args: {
        states: ['Failed'],
        exitCodes,
        namespaces: { include: [namespace] },
        ...(labelSelector ? { labelSelector: { matchLabels: labelSelector } } : {}),
      },
    },
  ],
  plugins: { deschedule: { enabled: ['PodLifeTime'] } },
});
const doc = (profiles: unknown[]) => stringify({ apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy', profiles });
// In force: pods that exited 2, in both namespaces. Proposed: exit 2 or 3 in a (more), only
// tier=scratch in b (fewer).
const current = () => doc([profile('a', [2], a.name), profile('b', [2], b.name)]);
const proposed = () => doc([profile('a', [2, 3], a.name), profile('b', [2], b.name, { tier: 'scratch' })]);

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
const lines = jsonLines;
const ours = () => [a.name, b.name, DEPLOYED.namespace];
const resourceVersions = async () =>
  Object.fromEntries(
    (await Promise.all([a.name, b.name].map((namespace) => core().listNamespacedPod({ namespace, labelSelector: `diff=${RUN}` })))).flatMap((l) =>
      l.items.map((p) => [`${p.metadata!.namespace}/${p.metadata!.name}`, p.metadata!.resourceVersion]),
    ),
  );

/** Rows sorted, keeping the kinds in their order (new before released): pods created in the same second have no order of their own to check. */
const sortedWithin = (rows: unknown[][]) => {
  const kinds = [...new Set(rows.map((r) => r[0]))];
  return [...rows].sort((x, y) => kinds.indexOf(x[0]) - kinds.indexOf(y[0]) || (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1));
};

let base: string[];
let newFile: string;
let oldFile: string;

beforeAll(async () => {
  newFile = file('new.yaml', proposed());
  oldFile = file('old.yaml', current());
  base = ['plan', '--kubeconfig', cluster.kubeconfigPath, '-l', `diff=${RUN}`, '--policy', newFile];
  const labels = (extra: Record<string, string> = {}) => ({ labels: { diff: RUN, ...extra } });
  await Promise.all([
    runPod(core(), a.name, 'a-exit2-1', { exitCode: 2, ...labels() }),
    runPod(core(), a.name, 'a-exit2-2', { exitCode: 2, ...labels() }),
    runPod(core(), a.name, 'a-exit3-1', { exitCode: 3, ...labels() }),
    runPod(core(), a.name, 'a-exit3-2', { exitCode: 3, ...labels() }),
    runPod(core(), a.name, 'a-running', labels()),
    runPod(core(), b.name, 'b-scratch', { exitCode: 2, ...labels({ tier: 'scratch' }) }),
    runPod(core(), b.name, 'b-data', { exitCode: 2, ...labels({ tier: 'data' }) }),
    runPod(core(), b.name, 'b-exit3', { exitCode: 3, ...labels({ tier: 'scratch' }) }),
  ]);
});

afterAll(async () => {
  await core()
    .deleteNamespacedConfigMap(DEPLOYED)
    .catch(() => undefined);
});

describe('kube-tidy plan --against FILE against a cluster', () => {
  it('lists exactly the newly selected and released pods with each side, the counts, over one listing, writing nothing', async () => {
    const audit = sharedAudit();
    const mark = audit.mark();
    const before = await resourceVersions();
    const r = await runCli([...base, '--against', oldFile, '--chunk-size', '2']);
    expect(r.code, r.stderr).toBe(0);
    const out = lines(r);
    // New ones first, then released (each in its policy's order: oldest first, the same second by name).
    const changes = out.filter((l) => l.type !== 'count' && l.type !== 'total');
    expect(sortedWithin(changes.map((l) => [l.type, l.namespace, l.name]))).toEqual([
      ['new', a.name, 'a-exit3-1'],
      ['new', a.name, 'a-exit3-2'],
      ['released', b.name, 'b-data'],
    ]);
    expect(changes.find((l) => l.name === 'a-exit3-1')).toMatchObject({
      before: { status: 'unselected' },
      after: { status: 'selected', profile: 'a', strategy: 'PodLifeTime', action: 'delete' },
    });
    expect(String((changes[0]!.after as { reason: string }).reason)).toMatch(/^PodLifeTime: .*exited 3/);
    expect(changes.find((l) => l.name === 'b-data')).toMatchObject({
      before: { status: 'selected', profile: 'b', strategy: 'PodLifeTime' },
      after: { status: 'unselected' },
    });
    expect(out.filter((l) => l.type === 'count')).toEqual([
      { type: 'count', namespace: a.name, strategy: 'PodLifeTime', before: 2, after: 4, new: 2, released: 0, changed: 0 },
      { type: 'count', namespace: b.name, strategy: 'PodLifeTime', before: 2, after: 1, new: 0, released: 1, changed: 0 },
    ]);
    // The 7 Failed pods (both policies read only Failed pods: the LIST says so), once, 2 a page.
    expect(out.at(-1)).toEqual({ type: 'total', podsSeen: 7, before: 4, after: 5, new: 2, released: 1, changed: 0 });
    expect(r.stderr).toContain(
      `plan --against ${oldFile} (nothing was changed): 2 newly selected, 1 released, 0 changed strategy; 4 selected before, 5 after, of 7 pods listed in 4 pages (status.phase=Failed)`,
    );
    // Nothing written: no request at all in these namespaces (not even a dry run), no pod changed.
    expect((await audit.settledSince(mark)).filter((w) => ours().includes(w.namespace ?? '') && notControlPlane(w))).toEqual([]);
    expect(await resourceVersions()).toEqual(before);
  });

  it('prints tables on request', async () => {
    const r = await runCli([...base, '--against', oldFile, '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    const [pods, counts] = r.stdout.trim().split('\n\n');
    expect(pods!.split('\n').slice(1).sort()).toEqual([
      expect.stringMatching(new RegExp(`^new\\s+${a.name}/a-exit3-1\\s+-\\s+PodLifeTime\\s+PodLifeTime: `)),
      expect.stringMatching(new RegExp(`^new\\s+${a.name}/a-exit3-2\\s+-\\s+PodLifeTime\\s+PodLifeTime: `)),
      expect.stringMatching(new RegExp(`^released\\s+${b.name}/b-data\\s+PodLifeTime\\s+-\\s+PodLifeTime: `)),
    ]);
    expect(counts!.split('\n').at(-1)).toMatch(/^TOTAL\s+4\s+5\s+2\s+1\s+0$/);
  });

  it.each([
    { gate: '1', code: 3, seen: 7 },
    { gate: '2', code: 0, seen: 7 },
    { gate: '10', code: 0, seen: 7 },
    // A percentage is of every pod in scope: the Running one is listed too (2 of 8 is 25%).
    { gate: '24%', code: 3, seen: 8 },
    { gate: '25%', code: 0, seen: 8 },
  ])('--max-new $gate with 2 newly selected exits $code', async ({ gate, code, seen }) => {
    const r = await runCli([...base, '--against', oldFile, '--max-new', gate]);
    expect(r.code, r.stderr).toBe(code);
    expect(lines(r).at(-1)).toMatchObject({ type: 'total', podsSeen: seen, new: 2, maxNew: gate, exceeded: code === 3 });
    if (code === 3) expect(r.stderr).toContain(`newly selects 2 pods, more than --max-new ${gate} allows (exit 3)`);
  });
});

describe('kube-tidy plan --against deployed', () => {
  it('exits 2 naming the ConfigMap when nothing is deployed', async () => {
    await core()
      .deleteNamespacedConfigMap(DEPLOYED)
      .catch(() => undefined);
    const r = await runCli([...base, '--against', 'deployed']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--against deployed:\n');
    expect(r.stderr).toContain('no such ConfigMap in the cluster: kube-tidy/kube-tidy-policy');
    expect(r.stdout).toBe('');
  });

  it("reads the deployed kube-tidy's ConfigMap, and configmap:NS/NAME reads another, without writing", async () => {
    await core()
      .createNamespace({ body: { metadata: { name: DEPLOYED.namespace } } })
      .catch(() => undefined); // there already
    await core().createNamespacedConfigMap({ namespace: DEPLOYED.namespace, body: { metadata: { name: DEPLOYED.name }, data: { 'policy.yaml': current() } } });
    await core().createNamespacedConfigMap({ namespace: a.name, body: { metadata: { name: 'proposed' }, data: { 'policy.yaml': proposed() } } });
    const audit = sharedAudit();
    const mark = audit.mark();
    const deployed = await runCli([...base, '--against', 'deployed', '--max-new', '2']);
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(lines(deployed).at(-1)).toEqual({ type: 'total', podsSeen: 7, before: 4, after: 5, new: 2, released: 1, changed: 0, maxNew: '2', exceeded: false });
    expect(deployed.stderr).toContain('plan --against deployed (nothing was changed): 2 newly selected, 1 released');
    // The other way round, both from ConfigMaps: the new policy is the deployed one, the old one proposed.
    const reverse = await runCli([
      'plan',
      '--kubeconfig',
      cluster.kubeconfigPath,
      '-l',
      `diff=${RUN}`,
      '--against',
      `configmap:${a.name}/proposed`,
      '--max-new',
      '0',
    ]);
    expect(reverse.code, reverse.stderr).toBe(3);
    expect(
      sortedWithin(
        lines(reverse)
          .filter((l) => l.type === 'new' || l.type === 'released')
          .map((l) => [l.type, l.name]),
      ),
    ).toEqual([
      ['new', 'b-data'],
      ['released', 'a-exit3-1'],
      ['released', 'a-exit3-2'],
    ]);
    expect((await audit.settledSince(mark)).filter((w) => ours().includes(w.namespace ?? '') && notControlPlane(w))).toEqual([]);
  });
});
