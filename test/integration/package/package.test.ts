// The npm package as a user installs it: `npm pack` of the tree, `npm install --prefix` of the
// tarball into an empty folder outside the repository, and the installed `kube-tidy` run with
// Node 22 (this process's): --help, policy check, and plan --kubeconfig against the shared
// control plane. The folder holds nothing but what the install put there, so a program that
// needed a package it does not bundle, or a file it does not ship, fails here.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CLI_FILE, NOTICES_FILE } from '../../../infra/bundle/cli.js';
import { installPacked, packPackage, type Installed, type Packed } from '../../../infra/package/pack.js';
import { policyDoc } from '../../fixtures/policy.js';
import { sharedAudit, sharedCluster, testNamespace, notControlPlane } from '../../harness/index.js';
import { runPod } from '../functions/setup.js';

const exec = promisify(execFile);
const ROOT = join(dirname(new URL(import.meta.url).pathname), '..', '..', '..');
const ns = testNamespace('package');
const cluster = sharedCluster();
const work = mkdtempSync(join(tmpdir(), 'kube-tidy-package-'));
const prefix = mkdtempSync(join(tmpdir(), 'kube-tidy-prefix-'));
const rootManifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

// Packed and installed once for the file: every test reads the same tarball and install.
let packed: Packed;
let installed: Installed;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** The installed program, run as `npx kube-tidy` runs it: npm's link, found through PATH's node (22). */
async function kubeTidy(...args: string[]): Promise<Ran> {
  const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
  try {
    const { stdout, stderr } = await exec(installed.bin, args, { cwd: prefix, env, maxBuffer: 16 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

/** Failed pods of `namespace` go, bare ones too. */
const policy = (namespace: string) =>
  policyDoc([{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 0, namespaces: { include: [namespace] } } }], {
    evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
  });

beforeAll(async () => {
  packed = await packPackage(work);
  installed = await installPacked(packed.tarball, prefix);
  console.log(
    `[package] ${packed.tarball}: ${packed.packedBytes} B packed, ${packed.unpackedBytes} B unpacked, ${packed.files.length} files; installed ${installed.bytes} B, ${installed.dependencies.length} dependencies`,
  );
}, 300_000);

describe('the packed tarball', () => {
  it("holds the bundled program, the bundled packages' licences, the changelog, the README and package.json: nothing else", () => {
    // Nothing else even after `npm ci`'s prepare built dist/: npm packs the file package.json's
    // "main" names whatever "files" says, so there is none (functions-framework's development
    // command finds its entry in function.js, which npm leaves out).
    expect(packed.files).toEqual(
      ['CHANGELOG.md', 'README.md', 'dist/cli/kube-client.cjs', `dist/cli/${CLI_FILE}`, `dist/cli/${NOTICES_FILE}`, 'package.json'].sort(),
    );
  });

  it('names every package the bundle carries with a declared licence, and its licence text where it ships one', async () => {
    const { stdout } = await exec('tar', ['-xOzf', packed.tarball, `package/dist/cli/${NOTICES_FILE}`], { maxBuffer: 16 << 20 });
    const entries = [...stdout.matchAll(/^(\S+)@(\d\S*) \((.+)\)$/gm)].map((m) => ({ name: m[1]!, license: m[3]! }));
    expect(entries.map((e) => e.name)).toEqual(expect.arrayContaining(['@kubernetes/client-node', 'zod', 'yaml', 'pino', 'cloudevents']));
    expect(entries.filter((e) => e.license === 'UNKNOWN')).toEqual([]);
  });

  it('is publishable: not private, its bin a file it ships, no dependencies, the tree version', async () => {
    const { stdout } = await exec('tar', ['-xOzf', packed.tarball, 'package/package.json']);
    const m = JSON.parse(stdout) as Record<string, unknown>;
    expect(m.private).toBeUndefined();
    expect(m.name).toBe('kube-tidy');
    expect(m.version).toBe(rootManifest.version);
    expect(m.bin).toEqual({ 'kube-tidy': `dist/cli/${CLI_FILE}` });
    expect(m.dependencies).toBeUndefined();
    expect(m.engines).toEqual({ node: '>=22' });
  });
});

describe('installed into an empty prefix with Node 22', () => {
  it('adds no package besides kube-tidy', () => {
    expect(installed.dependencies).toEqual([]);
  });

  it('runs kube-tidy --help', async () => {
    const r = await kubeTidy('--help');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^kube-tidy: event-driven cleanup for Kubernetes/);
    expect(r.stdout).toContain('kube-tidy policy check FILE');
  });

  it('runs kube-tidy policy check on a good policy (exit 0) and a bad one (exit 2, the field named)', async () => {
    const good = join(work, 'good.yaml');
    writeFileSync(good, stringify(policy('default')));
    const ok = await kubeTidy('policy', 'check', good);
    expect(ok.code, ok.stderr).toBe(0);
    const bad = join(work, 'bad.yaml');
    writeFileSync(bad, stringify({ ...policy('default'), maxNoOfPodsToEvictTotal: -1 }));
    const no = await kubeTidy('policy', 'check', bad);
    expect(no.code).toBe(2);
    expect(no.stdout + no.stderr).toMatch(/maxNoOfPodsToEvictTotal/);
  });

  it('runs kube-tidy plan --kubeconfig against the control plane: the Failed pod planned, nothing written for real', async () => {
    const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
    await runPod(core, ns.name, 'failed', { exitCode: 3 });
    await runPod(core, ns.name, 'running');
    const file = join(work, `policy-${ns.name}.yaml`);
    writeFileSync(file, stringify(policy(ns.name)));
    const audit = sharedAudit();
    const mark = audit.mark();
    const r = await kubeTidy('plan', '--kubeconfig', cluster.kubeconfigPath, '--namespace', ns.name, '--policy', file, '-o', 'json');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.name, l.strategy, l.action, l.outcome, l.dryRun])).toEqual([['failed', 'RemoveFailedPods', 'delete', 'deleted', true]]);
    const writes = (await audit.settledSince(mark)).filter((w) => w.namespace === ns.name && notControlPlane(w));
    expect(writes.map((w) => [w.verb, w.name, w.dryRun])).toEqual([['delete', 'failed', true]]);
    expect((await core.listNamespacedPod({ namespace: ns.name })).items.map((p) => p.metadata!.name).sort()).toEqual(['failed', 'running']);
  });
});
