// Kyverno's own TTL conformance tests (test/conformance/chainsaw/ttl of github.com/kyverno/kyverno
// v1.19.1, read from the Go module cache, unchanged) run by chainsaw v0.2.12 (built from its Go
// module, infra/local/chainsaw/build.ts) against kube-tidy on a control plane of its own: no
// Kyverno, kube-tidy as the chart's standalone Deployment runs it (kyverno-chainsaw/kube-tidy.ts),
// its ttl rule over Pod and ConfigMap in mode delete, at expiry by its watch and timers
// (objectUpdated; the sweep hourly, out of the way). chainsaw's configuration is given as
// flags, not Kyverno's .chainsaw.yaml: v0.2.12 refuses that file's
// namespace.fastDelete (a field of later chainsaw releases), so its assert and error timeouts and
// full names are given the same way by flag; what differs: the runner's own timeouts (ROOM), every
// case at once (--parallel), no fail-fast (one failure would stop the others), a JSON report,
// namespaces deleted as v0.2.12 does (waiting for them), and a case that needs flags of its own
// (the catalogue's `flags`) in a second chainsaw process beside the first. Each case must come
// to what the catalogue says (kyverno-chainsaw/catalogue.ts); the report and chainsaw's output are kept under
// .tmp/kyverno-chainsaw (or KUBE_TIDY_KYVERNO_TTL_REPORT_DIR).
//
// KUBE_TIDY_KYVERNO_TTL_MODE=report runs the same with the rule in mode report (nothing removed):
// then each case that judges kube-tidy's deletes must fail at the step the catalogue names, which
// shows the passes above are kube-tidy's doing and not the cluster's.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChainsaw } from '../../../infra/local/chainsaw/build.js';
import { kyvernoTtlTestsDir } from '../../../infra/local/chainsaw/kyverno-suite.js';
import { startCluster, type Cluster } from '../../harness/index.js';
import type { Standalone } from '../helm/standalone-process.js';
import { CASES, type Case } from './kyverno-chainsaw/catalogue.js';
import { startKubeTidy } from './kyverno-chainsaw/kube-tidy.js';
import { outcomeOf, testIn, type ChainsawReport, type TestResult } from './kyverno-chainsaw/report.js';

const MODE = process.env.KUBE_TIDY_KYVERNO_TTL_MODE === 'report' ? 'report' : 'delete';
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const REPORT_DIR = process.env.KUBE_TIDY_KYVERNO_TTL_REPORT_DIR ?? join(ROOT, '.tmp', 'kyverno-chainsaw');
/**
 * Kyverno v1.19.1's .chainsaw.yaml as chainsaw v0.2.12's flags, but for namespace.fastDelete (which
 * v0.2.12 does not know) and its apply timeout of 10 s: a write or a wait of the runner's own is given
 * room on two busy cores (apply 30 s; delete 1 min and cleanup 2 min where v0.2.12's defaults are 15 s
 * and 30 s). The assert and error timeouts are the tests' own bounds and stay Kyverno's.
 */
const KYVERNO_CONFIG = ['--full-name', '--assert-timeout', '1m30s', '--error-timeout', '1m30s'];
const ROOM = ['--apply-timeout', '30s', '--delete-timeout', '1m', '--cleanup-timeout', '2m'];

let cluster: Cluster | undefined;
let kubeTidy: Standalone | undefined;
let suite = '';
const tests: TestResult[] = [];
const outputs: string[] = [];

/** One chainsaw process over `cases` with their `flags`; resolves with its JSON report's tests. */
async function runChainsaw(bin: string, kubeconfig: string, label: string, cases: Case[], flags: string[]): Promise<TestResult[]> {
  const args = [
    'test',
    ...cases.flatMap((c) => ['--test-dir', join(suite, c.folder)]),
    ...KYVERNO_CONFIG,
    ...ROOM,
    ...flags,
    '--parallel',
    String(cases.length),
    '--fail-fast=false',
    '--no-color',
    '--report-format',
    'JSON',
    '--report-path',
    REPORT_DIR,
    '--report-name',
    label,
  ];
  const child = spawn(bin, args, { cwd: REPORT_DIR, env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += String(d)));
  child.stderr.on('data', (d) => (output += String(d)));
  await new Promise((resolve) => child.once('close', resolve));
  writeFileSync(join(REPORT_DIR, `${label}.log`), output);
  outputs.push(output);
  const file = join(REPORT_DIR, `${label}.json`);
  if (!existsSync(file)) throw new Error(`chainsaw wrote no report:\n${output.slice(-4000)}`);
  return (JSON.parse(readFileSync(file, 'utf8')) as ChainsawReport).tests ?? [];
}

/** The cases grouped by the flags they need: one chainsaw process per group, all at once. */
function groups(): { label: string; cases: Case[]; flags: string[] }[] {
  const byFlags = new Map<string, Case[]>();
  for (const c of CASES) byFlags.set(JSON.stringify(c.flags ?? []), [...(byFlags.get(JSON.stringify(c.flags ?? [])) ?? []), c]);
  return [...byFlags].map(([flags, cases], i) => ({ label: `${MODE}-${i}`, cases, flags: JSON.parse(flags) as string[] }));
}

/** Every folder of the suite that holds a test (its chainsaw-test.yaml), relative to the suite. */
function testFolders(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (!statSync(path).isDirectory()) return [];
    return existsSync(join(path, 'chainsaw-test.yaml')) ? [relative(suite, path)] : testFolders(path);
  });
}

/** One line per case: what it came to and how long it took, as chainsaw's report says. */
function summary(): string {
  return CASES.map((c) => {
    const t = testIn({ tests }, c.folder);
    const o = t && outcomeOf(t);
    const seconds = t ? Math.round((Date.parse(t.endTime ?? '') - Date.parse(t.startTime ?? '')) / 1000) : NaN;
    return `${c.folder}: ${!o ? 'no result' : o.passed ? 'passed' : `failed at "${o.failedStep}" (${o.error})`}, ${seconds} s`;
  }).join('\n');
}

beforeAll(async () => {
  const bin = buildChainsaw();
  suite = kyvernoTtlTestsDir();
  mkdirSync(REPORT_DIR, { recursive: true });
  cluster = await startCluster({ name: 'kyverno-ttl', kwokNodes: 1 });
  kubeTidy = await startKubeTidy(cluster, { mode: MODE, sweep: '@every 1h', grantedKinds: ['Pod'] });
  const kubeconfig = cluster.kubeconfigPath;
  const results = await Promise.all(groups().map((g) => runChainsaw(bin, kubeconfig, g.label, g.cases, g.flags)));
  tests.push(...results.flat());
  console.log(`Kyverno's TTL tests, kube-tidy's rule in mode ${MODE}:\n${summary()}\n(reports and chainsaw's output in ${REPORT_DIR})`);
}, 10 * 60_000);

afterAll(async () => {
  kubeTidy?.child.kill('SIGKILL');
  await kubeTidy?.exited;
  await cluster?.stop();
});

describe(`Kyverno v1.19.1's TTL conformance tests against kube-tidy (its ttl rule in mode ${MODE})`, () => {
  it('the catalogue names every test of the suite, so a case upstream adds is not passed over', () => {
    expect(testFolders(suite).sort()).toEqual(CASES.map((c) => c.folder).sort());
  });

  for (const c of CASES) {
    const failsAt = c.expected.passes ? (MODE === 'report' ? c.failsInReportModeAt : undefined) : c.expected.failsAt;
    it(`${c.folder}: ${failsAt ? `fails at "${failsAt}"` : 'passes'} (${c.checks})`, () => {
      const test = testIn({ tests }, c.folder);
      expect(test, `no result for ${c.folder}:\n${outputs.join('\n').slice(-4000)}`).toBeDefined();
      const outcome = outcomeOf(test!);
      const why = `${c.folder}: ${JSON.stringify(outcome)}\n${kubeTidy?.log.join('').slice(-3000) ?? ''}`;
      if (failsAt) expect({ passed: outcome.passed, failedStep: outcome.failedStep }, why).toEqual({ passed: false, failedStep: failsAt });
      else expect(outcome.passed, why).toBe(true);
    });
  }

  it('permission-lack holds because kube-tidy may not list ConfigMaps (the chart grants Pod only), and says so', () => {
    expect(kubeTidy?.log.join('')).toContain('kube-tidy may not list configmaps');
  });
});
