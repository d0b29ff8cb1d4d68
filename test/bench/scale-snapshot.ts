// Bench `scale-snapshot` (issue 27, item 3; issue 35): the scale population (scale/populate.ts:
// a quarter Failed, a quarter Succeeded, half Pending) populated once per size and restored from
// an etcd snapshot (scale/snapshot.ts) for every experiment, in this order:
//   ceilingBefore         the ceiling: scale/plain-client.mjs, a plain HTTP client in a process
//                         of its own (node:https, no Kubernetes client), 32 DELETEs in flight
//                         with uid preconditions, as the sweep's ServiceAccount; its CPU per
//                         DELETE is the floor a removal costs a client.
//   kubeTidyBaseline      with SCALE_BASELINE_BUNDLE only: another build of the bundle.
//   kubeTidy              one sweep instance, the production bundle on Node 22 as the image runs
//                         it (the sweep's ServiceAccount, the image's heap limit), ticked ('{}')
//                         until a tick removes nothing.
//   kubeTidyDev           the same sweep as the README's development command runs it:
//                         functions-framework over dist/, the admin kubeconfig, no heap limit.
//   kubeTidyDevHeapLimit  the same with the image's heap limit (IMAGE_NODE_OPTIONS).
//   ceilingAfter          the ceiling again: a run's place in the sequence moves it.
//   podGc                 kube-controller-manager with --terminated-pod-gc-threshold=100 (PodGC
//                         on, at its client's default QPS): deletions over 60 s.
// The kube-tidy experiments report deletes/s, list and decide time, the process's CPU per
// removed pod (/proc), API requests per 1,000 removed pods and peak RSS (scale/sweep-experiment.ts);
// `ratios` sets them against the ceilings and the plain client's CPU, and a table closes each size.
// SCALE_EXPERIMENTS=kubeTidy,kubeTidyDev runs only the named experiments, in the order above;
// both ceilings run too unless it names one of them (then only what it names runs).
// `npm run bench scale-snapshot -- 20000,150000`.
// Snapshots are cached under ~/.cache/kube-tidy/bench-snapshots/<size>-<recipe version>/.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Watch } from '@kubernetes/client-node';
import { bundle } from '../../infra/bundle/build.js';
// The heap limit the image sets (its ENV NODE_OPTIONS): the instance measured is the one deployed.
import { IMAGE_NODE_OPTIONS } from '../../infra/bundle/heap.js';
import type { Cluster } from '../harness/index.js';
import { peakRssMiB } from './scale.js';
import { plainClient } from './scale/ceiling.js';
import { countPhase, SCALE_POLICY, unthrottled } from './scale/populate.js';
import {
  begin,
  componentPid,
  cpuSeconds,
  ensureSnapshot,
  PODGC_OFF,
  restoredIdentities,
  restoredWhole,
  stopKwok,
  withRestored,
  type Snapshot,
} from './scale/snapshot.js';
import { kubeTidyExperiment } from './scale/sweep-experiment.js';
import { buildDist, bundleHarness, devHarness } from './scale/sweep-process.js';
import { ratios, summaryTable } from './scale/summary.js';

const PODGC_SECONDS = 60;

const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;

async function ceilingExperiment(cluster: Cluster, snapshot: Snapshot) {
  const ids = await restoredIdentities(cluster);
  const started = await begin(cluster);
  const run = await plainClient(ids.kubeconfig('sweep'));
  restoredWhole(snapshot, run.listed);
  const failed = Object.values(run.failed).reduce((a, b) => a + b, 0);
  if (failed) throw new Error(`the ceiling's DELETEs failed: ${JSON.stringify(run.failed)}`);
  const per = (ms: number) => round2(ms / Math.max(1, run.deleted));
  return {
    ...started,
    runs: "scale/plain-client.mjs: node:https, 32 DELETEs in flight over one keep-alive agent, as the sweep's ServiceAccount",
    deleted: run.deleted,
    listSeconds: round1(run.listSeconds),
    listPages: run.pages,
    // Nothing to decide: the field selector is the decision.
    writeSeconds: round1(run.writeSeconds),
    // The ceiling itself: the writes alone (scale.ts's figure).
    deletesPerSecond: Math.round(run.deleted / run.writeSeconds),
    deletesPerSecondWithList: Math.round(run.deleted / (run.listSeconds + run.writeSeconds)),
    firstDeleteSeconds: round1(run.listSeconds),
    requestsPerPod: round2((run.pages + run.deleted) / Math.max(1, run.deleted)),
    requestsPer1000Removed: round1(((run.pages + run.deleted) * 1000) / Math.max(1, run.deleted)),
    // The client's own CPU (process.cpuUsage() in it): the DELETEs alone, and with its LIST.
    cpuMsPerDelete: per(run.cpuMs.delete),
    cpuMsPerDeleteWithList: per(run.cpuMs.delete + run.cpuMs.list),
    cpuSeconds: { list: round2(run.cpuMs.list / 1000), delete: round2(run.cpuMs.delete / 1000), wholeProcess: round2(run.cpuMs.process / 1000) },
    peakRssMiB: run.peakRssMiB,
  };
}

/** PodGC from the restored cluster's start on: its deletions over PODGC_SECONDS, watched and counted. */
async function podGcExperiment(cluster: Cluster, snapshot: Snapshot, startedAt: number) {
  const kc = cluster.kubeConfig();
  const readyS = (performance.now() - startedAt) / 1000;
  const kwokStopped = await stopKwok(cluster);
  // Every deletion, as it happens (a watch from now on): PodGC's first and its pace. At ~20/s the watch costs little.
  const { core, close } = unthrottled(kc);
  const rv = (await core.listPodForAllNamespaces({ limit: 1 })).metadata?.resourceVersion;
  close();
  const deletions: number[] = [];
  const watch = await new Watch(kc).watch(
    '/api/v1/pods',
    { resourceVersion: rv, allowWatchBookmarks: false },
    (type) => void (type === 'DELETED' && deletions.push(performance.now())),
    () => {},
  );
  const watchFrom = performance.now();
  const terminal = async () => (await countPhase(kc, 'Failed')) + (await countPhase(kc, 'Succeeded'));
  const cm = componentPid(cluster, 'kube-controller-manager');
  const before = await terminal();
  const cpu0 = cm === undefined ? 0 : cpuSeconds(cm);
  await new Promise((r) => setTimeout(r, PODGC_SECONDS * 1000));
  const cmCpu = cm === undefined ? undefined : cpuSeconds(cm) - cpu0;
  const after = await terminal();
  watch.abort();
  const rate = (before - after) / PODGC_SECONDS;
  return {
    terminalInSnapshot: snapshot.meta.population.failed + snapshot.meta.population.succeeded,
    // PodGC runs as soon as its informers have synced: whatever went before the first count.
    deletedBeforeFirstCount: snapshot.meta.population.failed + snapshot.meta.population.succeeded - before,
    terminalAtStart: before,
    deletedIn: `${PODGC_SECONDS} s`,
    deleted: before - after,
    deletesPerSecond: round1(rate),
    // Every deletion the watch delivered, from before the first count to after the last (a watch falls behind under load).
    watchedDeletes: deletions.length,
    watchedSeconds: round1((performance.now() - watchFrom) / 1000),
    clusterReadySeconds: round1(readyS),
    loadAverage1mAtEnd: round2(loadavg()[0]!),
    kwokStopped,
    // From the cluster's start (PodGC's process starts with it) and from the watch's start.
    firstDeleteSecondsFromStart: deletions.length ? round1((deletions[0]! - startedAt) / 1000) : null,
    firstDeleteSecondsFromReady: deletions.length ? round1((deletions[0]! - watchFrom) / 1000) : null,
    secondsToClearBacklog: Math.round(before / Math.max(rate, 0.1)),
    // PodGC keeps no list of its own: an informer of every pod, in a process that runs every controller.
    controllerManagerPeakRssMiB: cm === undefined ? null : peakRssMiB(cm),
    // PodGC's cost: the CPU of the whole kube-controller-manager process (every controller it
    // runs, PodGC the busy one here) over the 60 s, per pod deleted in them (/proc/<pid>/stat).
    controllerManagerCpuSeconds: cmCpu === undefined ? null : round2(cmCpu),
    cpuMsPerDeletedPod: cmCpu === undefined || before === after ? null : round2((cmCpu * 1000) / (before - after)),
    // Not measured: the harness runs kube-controller-manager with --secure-port=0 (no /metrics
    // of its client's requests), and the API server's request counts do not name the client.
    requestsPer1000Removed: null,
  };
}

/** The code measured: the commit and whether the pass (shared/cleanup/io: its stages, schedules and observers) had uncommitted changes (the sweep changes under the bench). */
function codeState() {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  try {
    return { commit: git('log', '-1', '--oneline'), passUncommitted: git('status', '--porcelain', '--', 'shared/cleanup/io') !== '' };
  } catch {
    return { commit: 'unknown', passUncommitted: null };
  }
}

/** The experiments in their order (kubeTidyBaseline only with SCALE_BASELINE_BUNDLE). */
function experimentNames(baseline: string | undefined): string[] {
  return ['ceilingBefore', ...(baseline ? ['kubeTidyBaseline'] : []), 'kubeTidy', 'kubeTidyDev', 'kubeTidyDevHeapLimit', 'ceilingAfter', 'podGc'];
}

/**
 * SCALE_EXPERIMENTS=a,b: the named experiments only, in the sequence's order, and both
 * ceilings with them unless it names one of them (a ratio needs its run's ceilings).
 */
export function chosenExperiments(all: string[], named = process.env.SCALE_EXPERIMENTS): string[] {
  const names = named
    ?.split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (!names?.length) return all;
  const unknown = names.filter((n) => !all.includes(n));
  if (unknown.length)
    throw new Error(`SCALE_EXPERIMENTS: unknown ${unknown.join(', ')} (known: ${all.join(', ')}; kubeTidyBaseline needs SCALE_BASELINE_BUNDLE)`);
  const withCeilings = names.some((n) => n.startsWith('ceiling')) ? names : [...names, 'ceilingBefore', 'ceilingAfter'];
  return all.filter((n) => withCeilings.includes(n));
}

/** Each experiment on a fresh restore of the snapshot. */
function experiments(snapshot: Snapshot, size: number, policyFile: string, baseline: string | undefined): Record<string, () => Promise<object>> {
  const restored = (tag: string, run: (c: Cluster) => Promise<object>) =>
    withRestored(snapshot, `snap-${tag}-${size}`, run, { controllerManagerArgs: PODGC_OFF });
  const sweep = (tag: string, harness: Parameters<typeof kubeTidyExperiment>[3]) => () =>
    restored(tag, (c) => kubeTidyExperiment(c, snapshot, policyFile, harness));
  return {
    ceilingBefore: () => restored('ceiling-before', (c) => ceilingExperiment(c, snapshot)),
    // SCALE_BASELINE_BUNDLE=<dist/bundle/server.cjs of another checkout>: that build, on its own restore (before/after side by side).
    ...(baseline ? { kubeTidyBaseline: sweep('baseline', bundleHarness(baseline)) } : {}),
    kubeTidy: sweep('kube-tidy', bundleHarness()),
    kubeTidyDev: sweep('kube-tidy-dev', devHarness(undefined)),
    kubeTidyDevHeapLimit: sweep('kube-tidy-dev-heap', devHarness(IMAGE_NODE_OPTIONS)),
    ceilingAfter: () => restored('ceiling-after', (c) => ceilingExperiment(c, snapshot)),
    podGc: () => {
      const startedAt = performance.now();
      return withRestored(snapshot, `snap-podgc-${size}`, (c) => podGcExperiment(c, snapshot, startedAt), {
        controllerManagerArgs: ['--terminated-pod-gc-threshold=100'],
      });
    },
  };
}

async function oneSize(size: number, policyFile: string, code: ReturnType<typeof codeState>, names: string[]) {
  const tSnap = performance.now();
  const snapshot = await ensureSnapshot(size);
  const snapshotSeconds = round1((performance.now() - tSnap) / 1000);
  const { namespaces: _, ...population } = snapshot.meta.population;
  const r: Record<string, unknown> = {
    snapshot: {
      cached: snapshot.cached,
      seconds: snapshotSeconds,
      etcdMiB: snapshot.meta.etcdMiB,
      population,
      recipe: snapshot.meta.recipe,
    },
    code,
  };
  const run = experiments(snapshot, size, policyFile, process.env.SCALE_BASELINE_BUNDLE);
  for (const name of names) {
    r[name] = await run[name]!();
    console.log(`[scale-snapshot] ${size}: ${name} ${JSON.stringify(r[name])}`);
  }
  r.ratios = ratios(r);
  r.sequence = `${names.join(' > ')}, each on a fresh restore`;
  return r;
}

export async function runScaleSnapshotBench(sizes: number[]): Promise<object> {
  const names = chosenExperiments(experimentNames(process.env.SCALE_BASELINE_BUNDLE));
  // The sweep as the image runs it (the production bundle) and as a developer does (dist/),
  // built now from the tree as it is: the code measured is the code at this moment.
  const code = codeState();
  if (names.includes('kubeTidy')) await bundle();
  if (names.some((n) => n.startsWith('kubeTidyDev'))) buildDist();
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-scale-snapshot-'));
  const policyFile = join(dir, 'policy.json');
  writeFileSync(policyFile, JSON.stringify(SCALE_POLICY));
  const out: Record<string, unknown> = {};
  for (const size of sizes) out[`pods${size}`] = await oneSize(size, policyFile, code, names);
  // The figures to copy: one line per experiment and size.
  for (const size of sizes) for (const line of summaryTable(size, out[`pods${size}`] as Record<string, unknown>, names)) console.log(line);
  return out;
}
