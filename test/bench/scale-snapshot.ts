// Bench `scale-snapshot` (issue 27, item 3): the scale population (scale/populate.ts: a quarter
// Failed, a quarter Succeeded, half Pending) populated once per size and restored from an etcd
// snapshot (scale/snapshot.ts) for every experiment, in this order:
//   ceilingBefore  scale.ts's ceiling: 32 DELETEs in flight with uid preconditions, as the
//                  sweep's ServiceAccount, nothing else.
//   kubeTidy       one sweep instance, the production bundle on Node 22 as the image runs it,
//                  ticked ('{}') until a tick removes nothing.
//   ceilingAfter   the ceiling again: a run's place in the sequence moves it.
//   podGc          kube-controller-manager with --terminated-pod-gc-threshold=100 (PodGC on,
//                  at its client's default QPS): deletions over 60 s, as scale.ts counts them.
// Each reports list time, decide time, deletes/s, requests per removed pod, peak RSS and the
// time to the first delete where it has one. `npm run bench scale-snapshot -- 20000,150000`.
// Snapshots are cached under ~/.cache/kube-tidy/bench-snapshots/<size>-<recipe version>/.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, Watch } from '@kubernetes/client-node';
import { bundle, BUNDLE_FILE } from '../../infra/bundle/build.js';
// The heap limit the image sets (its ENV NODE_OPTIONS): the instance measured is the one deployed.
import { IMAGE_NODE_OPTIONS } from '../../infra/bundle/heap.js';
import { functionIdentities } from '../harness/function-identity.js';
import type { Cluster } from '../harness/index.js';
import { cpuBreakdown } from './cpu-profile.js';
import { bundled, ceilingDeletes, ceilingTargets, peakRssMiB, procMiB } from './scale.js';
import { countPhase, SCALE_POLICY, unthrottled } from './scale/populate.js';
import { componentPid, ensureSnapshot, IDENTITY_NAMESPACES, PODGC_OFF, settle, stopKwok, withRestored, type Snapshot } from './scale/snapshot.js';

const BUDGET_S = 50;

const PODGC_SECONDS = 60;
const MAX_TICKS = 30;

const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;

/** What a tick's answer carries (summary fields the pass may not have yet are optional). */
interface TickSummary {
  outcomes: Record<string, number>;
  listMs: number;
  durationMs: number;
  requests: number;
  podsSeen: number;
  pages: number;
  decideMs?: number;
  firstWriteMs?: number;
  planFrom?: 'listed' | 'carried' | 'resumed';
  stoppedBy?: string;
}

interface Tick extends Omit<TickSummary, 'outcomes'> {
  status: number;
  /** Seconds from the first tick's start. */
  startS: number;
  endS: number;
  deleted: number;
}

async function tick(url: string): Promise<{ status: number; summary: TickSummary }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal: AbortSignal.timeout(180_000) });
  const body = (await res.json()) as { summary?: TickSummary };
  if (!body.summary) throw new Error(`tick answered ${res.status} without a summary: ${JSON.stringify(body).slice(0, 500)}`);
  return { status: res.status, summary: body.summary };
}

/** The function identities again: their accounts are in the snapshot, their tokens are not. */
const identities = (cluster: Cluster) => functionIdentities(cluster.kubeConfig(), cluster.kubeconfigPath, ...IDENTITY_NAMESPACES);

/**
 * How the experiment began: the restored cluster's start (the copy of the snapshot included),
 * the wait for it to go idle, and the machine's 1-minute load average then (anything else
 * running on this 2-core machine shows there, and moves every figure).
 */
async function begin(cluster: Cluster) {
  const kwokStopped = await stopKwok(cluster);
  const settleSeconds = await settle(cluster);
  return { clusterReadySeconds: round1(cluster.readyMs / 1000), kwokStopped, settleSeconds, loadAverage1m: round2(loadavg()[0]!) };
}

/** Every experiment starts from the whole backlog: a restore that lost pods would flatter every figure. */
function restoredWhole(snapshot: Snapshot, failed: number): void {
  if (failed !== snapshot.meta.population.failed) throw new Error(`restored ${failed} Failed pods, the snapshot has ${snapshot.meta.population.failed}`);
}

async function ceilingExperiment(cluster: Cluster, snapshot: Snapshot) {
  const ids = await identities(cluster);
  const started = await begin(cluster);
  const as = new KubeConfig();
  as.loadFromFile(ids.kubeconfig('sweep'));
  const { core, close } = unthrottled(as);
  const t0 = performance.now();
  const { pods, pages } = await ceilingTargets(core);
  restoredWhole(snapshot, pods.length);
  const t1 = performance.now();
  await ceilingDeletes(core, pods);
  const t2 = performance.now();
  close();
  const writeSeconds = (t2 - t1) / 1000;
  return {
    ...started,
    deleted: pods.length,
    listSeconds: round1((t1 - t0) / 1000),
    listPages: pages,
    // Nothing to decide: the field selector is the decision.
    writeSeconds: round1(writeSeconds),
    // The ceiling itself: the writes alone (scale.ts's figure).
    deletesPerSecond: Math.round(pods.length / writeSeconds),
    deletesPerSecondWithList: Math.round(pods.length / ((t2 - t0) / 1000)),
    firstDeleteSeconds: round1((t1 - t0) / 1000),
    requestsPerPod: round2((pages + pods.length) / Math.max(1, pods.length)),
    // The loop runs inside the bench process: no RSS of its own to report.
  };
}

/** A profile's busy CPU per removed pod beside its areas (start and the LIST included: the whole process's life). */
const perRemoval = (b: ReturnType<typeof cpuBreakdown>, deleted: number) => ({
  ...b,
  busyMsPerRemovedPod: Math.round((b.busySeconds * 1e4) / Math.max(1, deleted)) / 10,
});

/** `bundleFile`: another build of the sweep (SCALE_BASELINE_BUNDLE: an earlier commit's, for before/after on the same snapshot). */
async function kubeTidyExperiment(cluster: Cluster, snapshot: Snapshot, policyFile: string, bundleFile?: string) {
  const ids = await identities(cluster);
  const started = await begin(cluster);
  const kc = cluster.kubeConfig();
  const backlog = await countPhase(kc, 'Failed');
  restoredWhole(snapshot, backlog);
  // SCALE_CPU_PROFILE=1: the sweep writes a V8 CPU profile when it exits (cpu-profile.ts reads it).
  const profileDir = process.env.SCALE_CPU_PROFILE === '1' ? mkdtempSync(join(tmpdir(), 'kube-tidy-cpu-')) : undefined;
  const fn = await bundled(
    {
      POLICY_FILE: policyFile,
      KUBECONFIG: ids.kubeconfig('sweep'),
      SWEEP_TIME_BUDGET_SECONDS: String(BUDGET_S),
      RECORD_EVENTS: 'false',
      NODE_OPTIONS: profileDir ? `${IMAGE_NODE_OPTIONS} --cpu-prof --cpu-prof-dir=${profileDir}` : IMAGE_NODE_OPTIONS,
    },
    bundleFile,
  );
  const ticks: Tick[] = [];
  let rssAtStartMiB = 0;
  let peak = 0;
  try {
    rssAtStartMiB = procMiB(fn.pid, 'VmRSS');
    const t0 = performance.now();
    for (let i = 0; i < MAX_TICKS; i++) {
      const start = performance.now();
      const { status, summary: s } = await tick(fn.url);
      const deleted = s.outcomes.deleted ?? 0;
      ticks.push({
        status,
        startS: round2((start - t0) / 1000),
        endS: round2((performance.now() - t0) / 1000),
        deleted,
        listMs: s.listMs,
        durationMs: s.durationMs,
        requests: s.requests,
        podsSeen: s.podsSeen,
        pages: s.pages,
        ...(s.decideMs === undefined ? {} : { decideMs: s.decideMs }),
        ...(s.firstWriteMs === undefined ? {} : { firstWriteMs: s.firstWriteMs }),
        ...(s.planFrom === undefined ? {} : { planFrom: s.planFrom }),
        ...(s.stoppedBy === undefined ? {} : { stoppedBy: s.stoppedBy }),
      });
      console.log(`[scale-snapshot] tick ${i + 1}: ${JSON.stringify(ticks.at(-1))}`);
      if (deleted === 0) break;
    }
    peak = peakRssMiB(fn.pid);
  } finally {
    await fn.stop();
  }
  const failedLeft = await countPhase(kc, 'Failed');
  const deleted = ticks.reduce((n, t) => n + t.deleted, 0);
  const whole = ticks.at(-1)!.endS - ticks[0]!.startS;
  const sum = (f: (t: Tick) => number | undefined) => ticks.reduce((n, t) => n + (f(t) ?? 0), 0);
  const hasDecide = ticks.some((t) => t.decideMs !== undefined);
  const first = ticks[0]!;
  // The last tick that removed anything: after it, the sweep only confirms there is nothing left.
  const lastRemoving = ticks.findLast((t) => t.deleted > 0) ?? first;
  const last = ticks.at(-1)!;
  return {
    ...started,
    backlog,
    deleted,
    failedLeft,
    ticks: ticks.length,
    wholeSweepSeconds: round1(whole),
    deletesPerSecond: Math.round(deleted / whole),
    // The ticks that removed pods only (the "first to last delete", to the tick's end).
    removingSeconds: round1(lastRemoving.endS - first.startS),
    deletesPerSecondRemovingTicks: Math.round(deleted / Math.max(1e-3, lastRemoving.endS - first.startS)),
    // The first tick's pass started with the tick (an HTTP round trip before it): firstWriteMs
    // when the summary has it, else its listMs (a pass that lists everything before it writes).
    firstDeleteSeconds: round1((first.firstWriteMs ?? first.listMs) / 1000),
    firstDeleteFrom: first.firstWriteMs === undefined ? 'listMs' : 'firstWriteMs',
    listSecondsFirstTick: round1(first.listMs / 1000),
    ...(first.decideMs === undefined ? {} : { decideSecondsFirstTick: round1(first.decideMs / 1000) }),
    requestsPerRemovedPod: round2(sum((t) => t.requests) / Math.max(1, deleted)),
    peakRssMiB: peak,
    rssAtStartMiB,
    nodeOptions: IMAGE_NODE_OPTIONS,
    ...(profileDir ? { cpuProfile: perRemoval(cpuBreakdown(profileDir, bundleFile ?? BUNDLE_FILE), deleted) } : {}),
    // Where the whole sweep's time went, summed over the ticks: the passes' list (reading and
    // deciding pages; the decisions alone when the summary has decideMs; a pass that writes
    // before its last page is decided writes during it too), the rest of each pass (writing,
    // after the list), and what was outside any pass (HTTP, the ticks' own set-up).
    timeSeconds: {
      list: round1(sum((t) => t.listMs) / 1000),
      ...(hasDecide ? { decide: round1(sum((t) => t.decideMs) / 1000) } : {}),
      afterList: round1(sum((t) => t.durationMs - t.listMs) / 1000),
      outsidePasses: round1(whole - sum((t) => t.durationMs) / 1000),
      // The closing tick that removed nothing (what a sweep pays to learn the backlog is gone).
      confirming: last.deleted === 0 && ticks.length > 1 ? round1(last.durationMs / 1000) : 0,
    },
    perTick: ticks,
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
  const before = await terminal();
  await new Promise((r) => setTimeout(r, PODGC_SECONDS * 1000));
  const after = await terminal();
  watch.abort();
  const cm = componentPid(cluster, 'kube-controller-manager');
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

async function oneSize(size: number, policyFile: string, code: ReturnType<typeof codeState>) {
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
  const log = (name: string) => console.log(`[scale-snapshot] ${size}: ${name} ${JSON.stringify(r[name])}`);
  r.ceilingBefore = await withRestored(snapshot, `snap-ceiling-before-${size}`, (c) => ceilingExperiment(c, snapshot), { controllerManagerArgs: PODGC_OFF });
  log('ceilingBefore');
  // SCALE_BASELINE_BUNDLE=<dist/bundle/server.cjs of another checkout>: that build first, on its own restore (before/after side by side).
  const baseline = process.env.SCALE_BASELINE_BUNDLE;
  if (baseline) {
    r.kubeTidyBaseline = await withRestored(snapshot, `snap-baseline-${size}`, (c) => kubeTidyExperiment(c, snapshot, policyFile, baseline), {
      controllerManagerArgs: PODGC_OFF,
    });
    log('kubeTidyBaseline');
  }
  r.kubeTidy = await withRestored(snapshot, `snap-kube-tidy-${size}`, (c) => kubeTidyExperiment(c, snapshot, policyFile), { controllerManagerArgs: PODGC_OFF });
  log('kubeTidy');
  r.ceilingAfter = await withRestored(snapshot, `snap-ceiling-after-${size}`, (c) => ceilingExperiment(c, snapshot), { controllerManagerArgs: PODGC_OFF });
  log('ceilingAfter');
  const startedAt = performance.now();
  r.podGc = await withRestored(snapshot, `snap-podgc-${size}`, (c) => podGcExperiment(c, snapshot, startedAt), {
    controllerManagerArgs: ['--terminated-pod-gc-threshold=100'],
  });
  log('podGc');
  const kt = (r.kubeTidy as { deletesPerSecond: number }).deletesPerSecond;
  const ratio = (name: 'ceilingBefore' | 'ceilingAfter' | 'podGc', of: number) => round2(of / (r[name] as { deletesPerSecond: number }).deletesPerSecond);
  r.ratios = {
    kubeTidyToCeilingBefore: ratio('ceilingBefore', kt),
    kubeTidyToCeilingAfter: ratio('ceilingAfter', kt),
    podGcToCeilingBefore: ratio('ceilingBefore', (r.podGc as { deletesPerSecond: number }).deletesPerSecond),
  };
  if (baseline)
    (r.ratios as Record<string, number>).baselineToCeilingBefore = ratio(
      'ceilingBefore',
      (r.kubeTidyBaseline as { deletesPerSecond: number }).deletesPerSecond,
    );
  r.sequence = `ceilingBefore > ${baseline ? 'kubeTidyBaseline > ' : ''}kubeTidy > ceilingAfter > podGc, each on a fresh restore`;
  return r;
}

export async function runScaleSnapshotBench(sizes: number[]): Promise<object> {
  // The sweep as the image runs it: the production bundle (built now, from the tree as it is:
  // the code measured is the code at this moment).
  const code = codeState();
  await bundle();
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-scale-snapshot-'));
  const policyFile = join(dir, 'policy.json');
  writeFileSync(policyFile, JSON.stringify(SCALE_POLICY));
  const out: Record<string, unknown> = {};
  for (const size of sizes) out[`pods${size}`] = await oneSize(size, policyFile, code);
  return out;
}
