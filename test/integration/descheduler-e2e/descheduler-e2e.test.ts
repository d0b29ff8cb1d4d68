// The descheduler's own end-to-end tests (sigs.k8s.io/descheduler v0.36.0, test/e2e, built by
// infra/local/descheduler/e2e-build.ts) run unchanged against kube-tidy on local control planes:
// - cluster "deploy": the tests that deploy /bin/descheduler (TestFailedPods,
//   TestTooManyRestarts, TestLeaderElection) under the descheduler's v0.36.0 RBAC, its pods
//   run by the stand-in (test/harness/descheduler-kubelet.ts) as the image runs them: its
//   /bin/descheduler bundle (kube-tidy descheduler), built for the run, on Node with the
//   image's NODE_OPTIONS (also a start as fast as the image's, not tsx's); then
//   TestFailedPods again under HEAD's ClusterRole (no `pods delete`);
// - cluster "lifetime", at the same time: the PodLifeTime tests, whose one helper
//   runPodLifetimePlugin the build's patch turns into one `kube-tidy descheduler` run with the
//   admin kubeconfig (as upstream runs them with kind's admin.conf).
// Two clusters because the tests cannot share one: TestNamespaceConstraintsExclude and
// TestEvictSystemCriticalPriority evict every pod older than a second outside their namespace.
// Each listed test must pass; the report (per test and subtest, with the reason of a failure)
// is written under .tmp/descheduler-e2e (or KUBE_TIDY_E2E_REPORT_DIR) and printed.
import { spawn } from 'node:child_process';
import { appendFileSync, createWriteStream, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildE2e } from '../../../infra/local/descheduler/e2e-build.js';
import { bundleDescheduler } from '../../../infra/bundle/build.js';
import { IMAGE_NODE_OPTIONS } from '../../../infra/bundle/heap.js';
import { startDeschedulerKubelet, type DeschedulerKubelet } from '../../harness/descheduler-kubelet.js';
import { startCluster, type Cluster } from '../../harness/index.js';
import { DEPLOYMENT_TESTS, EXPECTED_DIFFERENCES, HEAD_ROLE_TESTS, POD_LIFETIME_TESTS, runPattern } from './catalogue.js';
import { parseGoTestOutput } from './go-test-output.js';
import { applyDeschedulerRbac } from './rbac.js';
import { failureExcerpt, unproven, writeReport, type E2eRun } from './report.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const REPORT_DIR = process.env.KUBE_TIDY_E2E_REPORT_DIR ?? join(ROOT, '.tmp', 'descheduler-e2e');
/**
 * /bin/descheduler as the image has it (infra/bundle/build.ts), built for this run, outside the
 * repository as in the image: under the repository's package.json ("type": "module") Node would
 * take the extensionless CommonJS file for an ES module.
 */
const IMAGE_BIN = join(mkdtempSync(join(tmpdir(), 'kube-tidy-image-')), 'bin', 'descheduler');
/** What the patched runPodLifetimePlugin runs (split on spaces), before its own flags: the image's /bin/descheduler on Node. */
const KUBE_TIDY_DESCHEDULER = `${process.execPath} ${IMAGE_BIN}`;
/** The image's environment (infra/docker/Dockerfile). */
const IMAGE_ENV = { NODE_OPTIONS: IMAGE_NODE_OPTIONS };

const RUNS = [
  { label: 'v0.36.0-role', tests: DEPLOYMENT_TESTS },
  { label: 'head-role', tests: HEAD_ROLE_TESTS },
  { label: 'pod-lifetime', tests: POD_LIFETIME_TESTS },
] as const;

let clusters: Cluster[] = [];
let kubelet: DeschedulerKubelet | undefined;
const runs = new Map<string, E2eRun>();

/** One e2e.test process over `tests`, its output streamed to a log file and parsed. */
function runE2e(bin: string, cluster: Cluster, label: string, tests: readonly string[], minutes: number): Promise<E2eRun> {
  const logFile = join(REPORT_DIR, `${label}.log`);
  const log = createWriteStream(logFile);
  const args = ['-test.v', '-test.run', runPattern([...tests]), '-test.timeout', `${minutes}m`, '-descheduler-image', 'kube-tidy'];
  const started = Date.now();
  const child = spawn(bin, args, {
    cwd: ROOT,
    env: { ...process.env, KUBECONFIG: cluster.kubeconfigPath, KUBE_TIDY_DESCHEDULER, ...IMAGE_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, recorded with the cluster's processes: the harness's cleanup (and
    // its watchdog, if this process dies hard) kills it and the kube-tidy runs it started.
    detached: true,
  });
  if (child.pid) appendFileSync(join(cluster.dir, 'pids'), `${child.pid}\n`);
  let output = '';
  const take = (d: Buffer) => {
    output += String(d);
    log.write(d);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  return new Promise((resolve) =>
    child.once('close', (exitCode) => {
      log.end();
      const seconds = Math.round((Date.now() - started) / 1000);
      resolve({ label, tests: [...tests], results: parseGoTestOutput(output), exitCode, logFile, seconds });
    }),
  );
}

beforeAll(async () => {
  const bin = buildE2e();
  mkdirSync(REPORT_DIR, { recursive: true });
  await bundleDescheduler(IMAGE_BIN);
  clusters = await Promise.all([startCluster({ name: 'desched-e2e-deploy', kwokNodes: 2 }), startCluster({ name: 'desched-e2e-lifetime', kwokNodes: 2 })]);
  const [deploy, lifetime] = clusters as [Cluster, Cluster];
  await applyDeschedulerRbac(deploy, 'v0.36.0');
  kubelet = startDeschedulerKubelet(deploy.kubeConfig(), deploy.dir, { command: [process.execPath, IMAGE_BIN], env: IMAGE_ENV });
  const deploymentRuns = (async () => {
    runs.set('v0.36.0-role', await runE2e(bin, deploy, 'v0.36.0-role', DEPLOYMENT_TESTS, 12));
    await applyDeschedulerRbac(deploy, 'head');
    runs.set('head-role', await runE2e(bin, deploy, 'head-role', HEAD_ROLE_TESTS, 8));
  })();
  const lifetimeRun = runE2e(bin, lifetime, 'pod-lifetime', POD_LIFETIME_TESTS, 15).then((r) => void runs.set('pod-lifetime', r));
  await Promise.all([deploymentRuns, lifetimeRun]);
  const report = writeReport(REPORT_DIR, [...runs.values()], kubelet.runs);
  console.log(`${report}\n(report and logs in ${REPORT_DIR})`);
}, 25 * 60_000);

afterAll(async () => {
  await kubelet?.stop();
  await Promise.all(clusters.map((c) => c.stop()));
});

describe('the descheduler v0.36.0 e2e tests against kube-tidy', () => {
  for (const { label, tests } of RUNS) {
    for (const test of tests) {
      it(`${label}: ${test}`, () => {
        const result = runs.get(label)?.results.find((r) => r.name === test);
        const mine = (runs.get(label)?.results ?? []).filter((r) => r.name.split('/')[0] === test);
        const failing = mine.filter((r) => r.status !== 'PASS');
        const why = failing.map((r) => `${r.name} ${r.status}:\n${failureExcerpt(r).join('\n')}`).join('\n\n');
        // A documented difference must still fail; once it passes, it leaves the list.
        expect(result?.status, why).toBe(EXPECTED_DIFFERENCES[test] ? 'FAIL' : 'PASS');
        // And a pass counts only when the test could see what it counted (report.ts unproven).
        expect(mine.flatMap((r) => (unproven(r) ? [`${r.name}: ${unproven(r)}`] : []))).toEqual([]);
      });
    }
  }

  it('no descheduler pod ended on its own: each ran until the stand-in stopped it (SIGTERM: exit 0)', () => {
    const pods = kubelet?.runs ?? [];
    expect(pods.filter((p) => p.exitCode !== undefined && p.exitCode !== 0).map((p) => `${p.pod}: exit ${p.exitCode}\n${p.output.slice(-600)}`)).toEqual([]);
  });

  it('each descheduler pod answered its liveness probe (HTTPS /healthz on its --secure-port) before it failed as often as the probe allows', () => {
    const pods = kubelet?.runs ?? [];
    expect(pods.length).toBeGreaterThan(0);
    expect(pods.filter((p) => p.probes.mostInARow >= p.probes.failureThreshold).map((p) => `${p.pod}: ${p.probes.lastError}`)).toEqual([]);
    expect(pods.some((p) => p.probes.ok > 0)).toBe(true);
  });
});
