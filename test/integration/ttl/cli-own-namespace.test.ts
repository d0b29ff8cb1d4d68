// The CLI protects the deployed kube-tidy's namespace from ttl rules, as the deployment protects
// its own (BRAKES_NAMESPACE): `kube-tidy plan`, `plan --against` and `run` take it from
// --brakes-namespace (or the ledger they charge, or the policy ConfigMap's namespace, live.ts
// ownNamespaceOf). A Namespace named so, labelled expired, is kept and said protected; before,
// the CLI passed no own namespace and planned its deletion (and `plan --against` still counted
// it newly deleted after `run` kept it). The CLI as a child process against the shared real cluster.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { jsonLines, runCli } from '../../harness/cli-process.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';

const ns = testNamespace('ttl-cli-own');
const cluster = sharedCluster();
const core = () => cluster.kubeConfig().makeApiClient(CoreV1Api);
/** Where "kube-tidy is deployed" for this test: a Namespace whose TTL has expired. */
const home = () => `${ns.name}-home`;
let policy: string;

beforeAll(async () => {
  await core().createNamespace({ body: { metadata: { name: home(), labels: { 'cleanup.kyverno.io/ttl': '2020-01-01' } } } });
  policy = join(mkdtempSync(join(tmpdir(), 'kube-tidy-ttl-own-')), 'policy.yaml');
  const rule = { name: 'namespaces', mode: 'delete', kinds: [{ version: 'v1', kind: 'Namespace' }], namespaces: { include: [home()] } };
  writeFileSync(policy, stringify({ apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy', kubeTidy: { ttl: [rule] } }));
}, 60_000);

afterAll(async () => {
  await core()
    .deleteNamespace({ name: home() })
    .catch(() => undefined);
});

describe("kube-tidy's own namespace and ttl rules, from the CLI", () => {
  it('plan --against a policy without the rule counts nothing newly deleted: the namespace is kept on both sides', async () => {
    const old = join(mkdtempSync(join(tmpdir(), 'kube-tidy-ttl-own-old-')), 'old.yaml');
    writeFileSync(
      old,
      stringify({ apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy', kubeTidy: { objects: [{ name: 'jobs', kind: 'Job', minAge: '1h' }] } }),
    );
    const args = ['plan', '--kubeconfig', cluster.kubeconfigPath, '--policy', policy, '--against', old, '--max-new', '0', '-o', 'json'];
    const r = await runCli([...args, '--brakes-namespace', home()]);
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r).filter((l) => l.type === 'object-new')).toEqual([]);
    // Named as nobody's home, the same comparison does count it: the test can fail.
    const elsewhere = await runCli([...args, '--brakes-namespace', `${ns.name}-elsewhere`]);
    expect(elsewhere.code, elsewhere.stderr).toBe(3);
    expect(
      jsonLines(elsewhere)
        .filter((l) => l.type === 'object-new')
        .map((l) => [l.kind, l.name]),
    ).toEqual([['Namespace', home()]]);
  }, 120_000);

  it('run --yes keeps the namespace --brakes-namespace names, and says it is protected', async () => {
    const r = await runCli(['run', '--kubeconfig', cluster.kubeconfigPath, '--brakes-namespace', home(), '--policy', policy, '--yes', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r).filter((l) => typeof l.type === 'string');
    expect(lines.map((l) => `${l.type} ${l.kind} ${l.name}`)).toEqual([`object-kept Namespace ${home()}`]);
    expect(lines[0]?.reason).toContain("a protected namespace (kube-tidy's own, --brakes-namespace): never deleted");
    const stored = await core().readNamespace({ name: home() });
    expect(stored.metadata?.deletionTimestamp).toBeUndefined();
  }, 120_000);
});
