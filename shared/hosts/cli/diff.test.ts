import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { run, runAsync } from './main.js';
import { parseAgainst, parseMaxNew } from './diff-args.js';
import { readPods } from './input.js';
import { pod } from '../../../test/fixtures/pods.js';
import { policyDoc } from '../../../test/fixtures/policy.js';

// `kube-tidy plan --pods FILE --policy NEW --against OLD [--max-new N|P%]`: the diff of two
// policies over one dump, its output, its gate's exit code, and the flags it refuses (exit 2).

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-diff-'));
function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}
const NOW = '2026-06-01T12:00:00Z';

// Today: every Failed pod older than an hour. Proposed: Failed pods older than 10 minutes, but
// not in web, at most 2 per namespace, and the oldest (past 8500 s) by PodLifeTime first.
const old = file('old.yaml', policyDoc([{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 3600 } }]));
const proposed = file(
  'new.yaml',
  policyDoc(
    [
      { name: 'PodLifeTime', args: { states: ['Failed'], maxPodLifeTimeSeconds: 8500, namespaces: { exclude: ['web'] } } },
      { name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 600, namespaces: { exclude: ['web'] } } },
    ],
    { top: { maxNoOfPodsToEvictPerNamespace: 2 } },
  ),
);
const failed = (ns: string, name: string, age: number) => pod(name).inNamespace(ns).age(age).failed().build();
const items = [
  failed('batch', 'b-old', 9000),
  failed('batch', 'b-mid', 2000),
  failed('batch', 'b-young', 700),
  failed('batch', 'b-new', 60),
  failed('web', 'w-old', 9000),
  failed('web', 'w-mid', 2000),
  failed('ml', 'm-old', 9000),
  failed('ml', 'm-old2', 8000),
  failed('ml', 'm-old3', 7000),
];
const pods = file('pods.json', { apiVersion: 'v1', kind: 'List', items });
const uid = (name: string) => items.find((p) => p.metadata.name === name)!.metadata.uid;

function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = run(argv, { out: (s) => (stdout += s), err: (s) => (stderr += s) });
  const lines = () =>
    stdout.trim()
      ? stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, unknown>)
      : [];
  return {
    code,
    stdout,
    stderr,
    get lines() {
      return lines();
    },
  };
}
const diff = (...extra: string[]) => cli('plan', '--pods', pods, '--policy', proposed, '--against', old, '--now', NOW, ...extra);

describe('kube-tidy plan --against FILE (offline)', () => {
  it('prints the newly selected, released and changed pods with each side, the counts and the total, as JSON lines', () => {
    const r = diff();
    expect(r.code, r.stderr).toBe(0);
    const pods = r.lines.filter((l) => l.type !== 'count' && l.type !== 'total');
    expect(pods.map((l) => [l.type, l.namespace, l.name])).toEqual([
      ['new', 'batch', 'b-mid'],
      ['released', 'web', 'w-old'],
      ['released', 'ml', 'm-old3'],
      ['changed', 'batch', 'b-old'],
      ['changed', 'ml', 'm-old'],
    ]);
    expect(pods[0]).toEqual({
      type: 'new',
      namespace: 'batch',
      name: 'b-mid',
      uid: uid('b-mid'),
      before: { status: 'unselected' },
      after: {
        status: 'selected',
        profile: 'test',
        strategy: 'RemoveFailedPods',
        action: 'delete',
        reason: 'RemoveFailedPods: phase Failed; age 33m20s > 10m0s',
      },
    });
    expect(pods[1]!.after).toEqual({ status: 'unselected' });
    expect(pods[2]!.after).toEqual({ status: 'kept', profile: 'test', strategy: 'RemoveFailedPods', reason: 'limit maxNoOfPodsToEvictPerNamespace reached' });
    expect(pods[3]).toMatchObject({ before: { strategy: 'RemoveFailedPods' }, after: { strategy: 'PodLifeTime' } });
    expect(r.lines.filter((l) => l.type === 'count')).toEqual([
      { type: 'count', namespace: 'batch', strategy: 'PodLifeTime', before: 0, after: 1, new: 0, released: 0, changed: 1 },
      { type: 'count', namespace: 'batch', strategy: 'RemoveFailedPods', before: 1, after: 1, new: 1, released: 0, changed: 0 },
      { type: 'count', namespace: 'ml', strategy: 'PodLifeTime', before: 0, after: 1, new: 0, released: 0, changed: 1 },
      { type: 'count', namespace: 'ml', strategy: 'RemoveFailedPods', before: 3, after: 1, new: 0, released: 1, changed: 0 },
      { type: 'count', namespace: 'web', strategy: 'RemoveFailedPods', before: 1, after: 0, new: 0, released: 1, changed: 0 },
    ]);
    expect(r.lines.at(-1)).toEqual({ type: 'total', podsSeen: 9, before: 5, after: 4, new: 1, released: 2, changed: 2 });
    expect(r.stderr).toBe(
      `plan --against ${old} (nothing was changed): 1 newly selected, 2 released, 2 changed strategy; 5 selected before, 4 after, of 9 pods in the dump\n`,
    );
  });

  it('prints a table of the pods and one of the counts with -o table', () => {
    const r = diff('-o', 'table');
    expect(r.code).toBe(0);
    const [pods, counts] = r.stdout.trim().split('\n\n');
    const rows = pods!.split('\n');
    expect(rows[0]).toMatch(/^CHANGE\s+POD\s+BEFORE\s+AFTER\s+REASON$/);
    expect(rows[1]).toMatch(/^new\s+batch\/b-mid\s+-\s+RemoveFailedPods\s+RemoveFailedPods: phase Failed; age 33m20s > 10m0s$/);
    expect(rows[3]).toMatch(
      /^released\s+ml\/m-old3\s+RemoveFailedPods\s+kept \(RemoveFailedPods\)\s+RemoveFailedPods: .*\(now kept: limit maxNoOfPodsToEvictPerNamespace reached\)$/,
    );
    expect(rows[4]).toMatch(/^changed\s+batch\/b-old\s+RemoveFailedPods\s+PodLifeTime\s+PodLifeTime: .* \(before: RemoveFailedPods: /);
    const countRows = counts!.split('\n');
    expect(countRows[0]).toMatch(/^NAMESPACE\s+STRATEGY\s+BEFORE\s+AFTER\s+NEW\s+RELEASED\s+CHANGED$/);
    expect(countRows.at(-1)).toMatch(/^TOTAL\s+5\s+4\s+1\s+2\s+2$/);
  });

  it('says so when nothing changes', () => {
    const r = cli('plan', '--pods', pods, '--policy', old, '--against', old, '--now', NOW, '-o', 'table', '--max-new', '0');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('no change: both policies select the same 5 pods');
    expect(r.stderr).toContain('0 newly selected, 0 released, 0 changed strategy; 5 selected before, 5 after, of 9 pods in the dump; --max-new 0: within');
  });

  it.each([
    { gate: '0', code: 3 },
    { gate: '1', code: 0 },
    { gate: '11%', code: 3 }, // 1 of 9 pods is 11.1%
    { gate: '11.12%', code: 0 },
    { gate: '100%', code: 0 },
  ])('--max-new $gate with 1 newly selected pod of 9 exits $code', ({ gate, code }) => {
    const r = diff('--max-new', gate);
    expect(r.code, r.stderr).toBe(code);
    expect(r.lines.at(-1)).toMatchObject({ type: 'total', maxNew: gate, exceeded: code === 3 });
    if (code === 3) expect(r.stderr).toContain(`kube-tidy: the new policy newly selects 1 pods, more than --max-new ${gate} allows (exit 3)`);
    else expect(r.stderr).not.toContain('kube-tidy:');
  });
});

describe('plan --against: invalid flags exit 2 naming them', () => {
  it.each([
    { name: '--max-new without --against', args: ['--max-new', '3'], message: '--max-new gates a diff: add --against FILE' },
    { name: 'a count that is not a number', args: ['--against', old, '--max-new', 'many'], message: '--max-new "many": expected a whole number' },
    { name: 'a percentage over 100', args: ['--against', old, '--max-new', '101%'], message: '--max-new "101%"' },
    { name: 'a negative count', args: ['--against', old, '--max-new=-1'], message: '--max-new "-1"' },
    { name: 'the deployed policy, offline', args: ['--against', 'deployed'], message: '--against deployed reads a cluster: add --kubeconfig FILE' },
    { name: 'a ConfigMap, offline', args: ['--against', 'configmap:kube-tidy/p'], message: 'reads a cluster' },
    { name: 'a malformed ConfigMap', args: ['--against', 'configmap:nope'], message: '--against "configmap:nope": expected configmap:NAMESPACE/NAME' },
    { name: '--explain with a diff', args: ['--against', old, '--explain'], message: '--explain is for a plan' },
    { name: 'an old policy that does not exist', args: ['--against', join(dir, 'missing.yaml')], message: 'missing.yaml:\n' },
  ])('$name', ({ args, message }) => {
    const r = cli('plan', '--pods', pods, '--policy', proposed, '--now', NOW, ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
  });

  it('an invalid old policy names the field path under its file', () => {
    const bad = file('bad-old.yaml', policyDoc([{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 'soon' } }]));
    const r = cli('plan', '--pods', pods, '--policy', proposed, '--against', bad, '--now', NOW);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad}:`);
    expect(r.stderr).toContain('profiles[0].pluginConfig[0].args.minPodLifetimeSeconds');
  });

  it.each([
    { name: '--against with run', args: ['run', '--yes', '--against', old], message: '--against compares two policies: it is for "kube-tidy plan"' },
    { name: 'a bad gate, live', args: ['plan', '--against', 'deployed', '--policy', proposed, '--max-new', '5 pods'], message: '--max-new "5 pods"' },
    { name: '--max-new without --against, live', args: ['plan', '--max-new', '5'], message: '--max-new gates a diff: add --against' },
    {
      name: 'the deployed policy against itself',
      args: ['plan', '--against', 'deployed'],
      message: '--against deployed and the new policy are both ConfigMap kube-tidy/kube-tidy-policy: pass the new one with --policy FILE',
    },
    { name: '--explain with a diff, live', args: ['plan', '--against', old, '--explain'], message: '--explain is for a plan' },
  ])('$name, before the kubeconfig is read', async ({ args, message }) => {
    let stderr = '';
    let stdout = '';
    const code = await runAsync([...args, '--kubeconfig', join(dir, 'no-such-kubeconfig')], { out: (s) => (stdout += s), err: (s) => (stderr += s) });
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stderr).not.toContain('no-such-kubeconfig');
    expect(stdout).toBe('');
  });

  it('parses --against and --max-new', () => {
    expect(parseAgainst('deployed')).toEqual({ deployed: true });
    expect(parseAgainst('./deployed')).toEqual({ file: './deployed' });
    expect(parseAgainst('configmap:kube-tidy/kube-tidy-policy')).toEqual({ configMap: 'kube-tidy/kube-tidy-policy' });
    expect(parseMaxNew('25')).toEqual({ max: 25 });
    expect(parseMaxNew('2.5%')).toEqual({ percent: 2.5 });
    expect(parseMaxNew('2.555%')).toHaveProperty('problem');
  });

  it('is in the help of a plan, offline and live, with exit code 3', async () => {
    expect(cli('plan', '--help').stdout).toContain('--against CURRENT');
    let live = '';
    await runAsync(['plan', '--kubeconfig', 'x', '--help'], { out: (s) => (live += s), err: () => {} });
    expect(live).toContain('--max-new N | P%');
    expect(cli('--help').stdout).toContain('3 plan --against: the new policy newly selects more pods than --max-new allows');
  });
});

describe('reading a large dump', () => {
  it('reads 30,000 pods of kubectl JSON in seconds, not the minutes a YAML document tree takes', () => {
    const big = file('big.json', { apiVersion: 'v1', kind: 'List', items: Array.from({ length: 30_000 }, (_, i) => failed(`ns-${i % 20}`, `p-${i}`, 60 + i)) });
    const started = Date.now();
    expect(readPods(big)).toHaveLength(30_000);
    // ~0.3 s here; the YAML parser took ~30 s for as many (100,000: 103 s and 4 GB).
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 60_000);
});

describe('the kube-tidy program, comparing policies', () => {
  it('exits 3 as a process when the gate is exceeded, 0 when within, so CI can gate a change', () => {
    const argv = ['--import', 'tsx', 'shared/hosts/cli/main.ts', 'plan', '--pods', pods, '--policy', proposed, '--against', old, '--now', NOW];
    const over = spawnSync(process.execPath, [...argv, '--max-new', '0'], { encoding: 'utf8' });
    expect(over.status, over.stderr).toBe(3);
    expect(over.stdout.trim().split('\n').at(-1)).toContain('"exceeded":true');
    const within = spawnSync(process.execPath, [...argv, '--max-new', '1'], { encoding: 'utf8' });
    expect(within.status, within.stderr).toBe(0);
  }, 120_000);
});
