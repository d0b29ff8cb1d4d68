import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync } from './main.js';

// `kube-tidy bridge` argument handling: every problem reported at once, exit 2, help exit 0.
// Running against a cluster is covered in test/integration/bridge/cli.test.ts.

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-bridge-cli-'));
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runAsync(['bridge', ...argv], { out: (s) => (stdout += s), err: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

describe('kube-tidy bridge arguments', () => {
  it.each([
    { args: ['--sink', 'http://127.0.0.1:1/'], message: 'missing --kubeconfig (or $KUBECONFIG)', sentence: 'no kubeconfig' },
    { args: ['--kubeconfig', kubeconfig], message: 'missing --sink', sentence: 'no sink' },
    { args: ['--kubeconfig', join(dir, 'nope'), '--sink', 'http://x/'], message: 'no such file', sentence: 'a kubeconfig that does not exist' },
    {
      args: ['--kubeconfig', kubeconfig, '--sink', 'localhost:8080'],
      message: '--sink "localhost:8080" is not an http or https URL',
      sentence: 'a sink without a scheme',
    },
    {
      args: ['--kubeconfig', kubeconfig, '--sink', 'http://x/', '--kinds', 'Pod,CronJob'],
      message: 'unknown kind "CronJob" (known: Pod, Job, PersistentVolumeClaim, Workload)',
      sentence: 'an unknown kind',
    },
    {
      args: ['--kubeconfig', kubeconfig, '--sink', 'http://x/', '--retries=-1'],
      message: '--retries "-1" is not a whole number',
      sentence: 'negative retries',
    },
    {
      args: ['--kubeconfig', kubeconfig, '--sink', 'http://x/', '--concurrency', '0'],
      message: '--concurrency "0" is not a whole number of at least 1',
      sentence: 'zero concurrency',
    },
    {
      args: ['--kubeconfig', kubeconfig, '--sink', 'http://x/', '--timeout', '10'],
      message: '--timeout "10" is not a positive duration',
      sentence: 'a timeout without a unit',
    },
    { args: ['--kubeconfig', kubeconfig, '--sink', 'http://x/', '--frobnicate'], message: "Unknown option '--frobnicate'", sentence: 'an unknown flag' },
    { args: ['--kubeconfig', kubeconfig, '--sink', 'http://x/', 'extra'], message: 'unexpected argument "extra"', sentence: 'a stray argument' },
  ])('exits 2 on $sentence', async ({ args, message }) => {
    const r = await cli(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('Usage: kube-tidy bridge');
  });

  it('reports every problem at once', async () => {
    const r = await cli('--sink', 'nope', '--retries', 'x', '--kinds', 'Foo');
    expect(r.stderr.split('\n').slice(0, 4)).toEqual([
      'kube-tidy: missing --kubeconfig (or $KUBECONFIG)',
      '  --sink "nope" is not an http or https URL',
      '  --retries "x" is not a whole number of at least 0',
      '  --kinds: unknown kind "Foo" (known: Pod, Job, PersistentVolumeClaim, Workload)',
    ]);
  });

  it('exits 2 on a kubeconfig with no current cluster', async () => {
    const r = await cli('--kubeconfig', kubeconfig, '--sink', 'http://x/');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`kubeconfig ${kubeconfig}:`);
  });

  it('exits 2 on a kubeconfig it cannot parse, without quoting it (it may hold a token)', async () => {
    const broken = join(dir, 'broken');
    writeFileSync(broken, 'users: [{name: x, user: {token: SECRET-TOKEN-123}}\n  : : bad');
    const r = await cli('--kubeconfig', broken, '--sink', 'http://x/');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`kubeconfig ${broken}: not a readable kubeconfig`);
    expect(r.stderr).not.toContain('SECRET-TOKEN-123');
  });

  it('prints its help on --help and exits 0, saying existing objects produce no events', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('objects that exist when it starts produce no');
    expect(r.stdout).toContain('Run a sweep');
  });

  it('leaves the other commands as they were', async () => {
    const r = await runAsync(['frobnicate'], { out: () => undefined, err: () => undefined });
    expect(r).toBe(2);
  });
});
