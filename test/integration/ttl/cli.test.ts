// `kube-tidy plan --kubeconfig` and `run --yes` with kubeTidy.ttl rules, as a person runs them:
// the CLI as a child process against the shared real cluster. The plan removes nothing and shows
// each object expired, waiting or unreadable, and says once the kind the cluster does not serve;
// `plan --against` counts what the ttl rule newly deletes; the run deletes the expired ConfigMap alone.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { jsonLines, runCli } from '../../harness/cli-process.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';

const ns = testNamespace('ttl-cli');
const cluster = sharedCluster();
const core = () => cluster.kubeConfig().makeApiClient(CoreV1Api);
let policy: string;
let base: string[];
let dir: string;

const present = (name: string) =>
  core()
    .readNamespacedConfigMap({ namespace: ns.name, name })
    .then(
      () => true,
      () => false,
    );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kube-tidy-ttl-cli-'));
  policy = join(dir, 'policy.yaml');
  const kinds = [
    { version: 'v1', kind: 'ConfigMap' },
    { version: 'v1', kind: 'Service' },
    { group: 'example.com', version: 'v1', kind: 'Widget' },
  ];
  writeFileSync(
    policy,
    stringify({
      apiVersion: 'descheduler/v1alpha2',
      kind: 'DeschedulerPolicy',
      kubeTidy: { ttl: [{ name: 'ci-ttl', mode: 'delete', kinds, namespaces: { include: [ns.name] } }] },
    }),
  );
  // kube-tidy's own namespace (--brakes-namespace) is never a ttl rule's: another than the one cleaned (cli-own-namespace.test.ts).
  base = ['--kubeconfig', cluster.kubeconfigPath, '--namespace', ns.name, '--brakes-namespace', `${ns.name}-tidy`, '--policy', policy];
  const cm = (name: string, annotations: Record<string, string>) =>
    core().createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name, annotations } } });
  await cm('expired', { 'janitor/expires': '2020-01-01' });
  await cm('week', { 'janitor/ttl': '7d' });
  await core().createNamespacedService({
    namespace: ns.name,
    body: { metadata: { name: 'typo', annotations: { 'janitor/ttl': 'soon' } }, spec: { ports: [{ port: 80 }] } },
  });
}, 60_000);

describe('kube-tidy with ttl rules', () => {
  it('plan shows each object expired, waiting or unreadable, says the unserved kind, and removes nothing', async () => {
    const r = await runCli(['plan', ...base, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r).filter((l) => typeof l.type === 'string');
    expect(lines.map((l) => `${l.type} ${l.kind} ${l.name} ${l.outcome ?? ''}`.trim()).sort()).toEqual(
      ['object ConfigMap expired deleted', 'object-eligible ConfigMap week', 'object-kept Service typo'].sort(),
    );
    expect(lines.find((l) => l.name === 'expired')).toMatchObject({ dryRun: true, mode: 'delete', rule: 'ci-ttl' });
    expect(r.stderr).toContain(
      'ttl: example.com/v1/Widget cannot be read here (example.com/v1 is not served by this cluster): its rules go on with the other kinds',
    );
    expect(await present('expired')).toBe(true);
  }, 120_000);

  it('plan --against a policy without the ttl rule shows the ConfigMap newly deleted and exits 3 over --max-new 0', async () => {
    const old = join(dir, 'old.yaml');
    writeFileSync(
      old,
      stringify({ apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy', kubeTidy: { objects: [{ name: 'jobs', kind: 'Job', minAge: '1h' }] } }),
    );
    const r = await runCli(['plan', ...base, '--against', old, '--max-new', '0', '-o', 'json']);
    expect(r.code, r.stderr).toBe(3);
    const changes = jsonLines(r).filter((l) => l.type === 'object-new');
    // The 7d one is not yet selected on either side: only what expired is new.
    expect(changes.map((l) => [l.kind, l.name, l.newlyDeleted])).toEqual([['ConfigMap', 'expired', true]]);
    expect(await present('expired')).toBe(true);
  }, 120_000);

  it('run --yes deletes the expired ConfigMap alone', async () => {
    const r = await runCli(['run', ...base, '--yes', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(await present('expired')).toBe(false);
    expect(await present('week')).toBe(true);
    expect((await core().readNamespacedService({ namespace: ns.name, name: 'typo' })).metadata?.name).toBe('typo');
  }, 120_000);
});
