// scale-snapshot.ts's kube-tidy experiments: one sweep process (started by a SweepHarness,
// sweep-process.ts) ticked ('{}') until a tick removes nothing, on a restored cluster. Each
// reports its pace, where its time went, its peak RSS, and (issue 35) its cost: the process's
// CPU (utime + stime, /proc/<pid>/stat) from just before the first tick to just after the last,
// per removed pod, and the API requests per 1,000 removed pods; the CPU the process spent
// starting (its start to the first tick) apart.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cluster } from '../../harness/index.js';
import { cpuBreakdown } from '../cpu-profile.js';
import { peakRssMiB, procMiB } from '../scale.js';
import { countPhase } from './populate.js';
import { begin, cpuSeconds, restoredWhole, type Snapshot } from './snapshot.js';
import type { SweepHarness, SweepProcess } from './sweep-process.js';

const BUDGET_S = 50;
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
  /** The sweep process's CPU during the tick (seconds, /proc). */
  cpuSeconds: number;
}

async function tick(url: string): Promise<{ status: number; summary: TickSummary }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal: AbortSignal.timeout(180_000) });
  const body = (await res.json()) as { summary?: TickSummary };
  if (!body.summary) throw new Error(`tick answered ${res.status} without a summary: ${JSON.stringify(body).slice(0, 500)}`);
  return { status: res.status, summary: body.summary };
}

/** A profile's busy CPU per removed pod beside its areas (start and the LIST included: the whole process's life). */
const perRemoval = (b: ReturnType<typeof cpuBreakdown>, deleted: number) => ({
  ...b,
  busyMsPerRemovedPod: Math.round((b.busySeconds * 1e4) / Math.max(1, deleted)) / 10,
});

/** Ticks until one removes nothing (or MAX_TICKS), each with the process's CPU over it. */
async function runTicks(fn: SweepProcess) {
  const ticks: Tick[] = [];
  const cpuAtFirstTick = cpuSeconds(fn.pid);
  const t0 = performance.now();
  for (let i = 0; i < MAX_TICKS; i++) {
    const start = performance.now();
    const cpu = cpuSeconds(fn.pid);
    const { status, summary: s } = await tick(fn.url);
    const deleted = s.outcomes.deleted ?? 0;
    ticks.push({
      status,
      startS: round2((start - t0) / 1000),
      endS: round2((performance.now() - t0) / 1000),
      deleted,
      cpuSeconds: round2(cpuSeconds(fn.pid) - cpu),
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
  return { ticks, cpuAtFirstTick, cpuAfterLastTick: cpuSeconds(fn.pid) };
}

/** Where the process's CPU went: its start, the ticks, and the figures per removal. */
function cost(ticks: Tick[], deleted: number, cpu: { cpuAtFirstTick: number; cpuAfterLastTick: number }) {
  const seconds = cpu.cpuAfterLastTick - cpu.cpuAtFirstTick;
  const removing = ticks.filter((t) => t.deleted > 0).reduce((n, t) => n + t.cpuSeconds, 0);
  const requests = ticks.reduce((n, t) => n + t.requests, 0);
  const per = (x: number) => round2((x * 1000) / Math.max(1, deleted));
  return {
    cpuSeconds: round2(seconds),
    // From the first tick's start to the last tick's end, the closing tick that removed nothing included.
    cpuMsPerRemovedPod: per(seconds),
    // The ticks that removed pods only (the closing tick lists every terminal pod again to find nothing).
    cpuMsPerRemovedPodRemovingTicks: per(removing),
    // The process's start to the first tick: module loading, the policy, the server (not per removal).
    startupCpuSeconds: round2(cpu.cpuAtFirstTick),
    requests,
    requestsPer1000Removed: Math.round(per(requests) * 10) / 10,
  };
}

/** Starts the sweep with the bench's policy and budget (Events off), profiled when SCALE_CPU_PROFILE=1. */
async function startSweep(kubeconfig: string, policyFile: string, harness: SweepHarness) {
  // SCALE_CPU_PROFILE=1: the sweep writes a V8 CPU profile when it exits (cpu-profile.ts reads it).
  const profileDir = process.env.SCALE_CPU_PROFILE === '1' ? mkdtempSync(join(tmpdir(), 'kube-tidy-cpu-')) : undefined;
  const nodeOptions = [harness.nodeOptions, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])].filter(Boolean).join(' ');
  const fn = await harness.start({
    POLICY_FILE: policyFile,
    KUBECONFIG: kubeconfig,
    SWEEP_TIME_BUDGET_SECONDS: String(BUDGET_S),
    RECORD_EVENTS: 'false',
    ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
  });
  return { fn, profileDir };
}

export async function kubeTidyExperiment(cluster: Cluster, snapshot: Snapshot, policyFile: string, harness: SweepHarness) {
  // Before the wait for an idle control plane: minting the identities' tokens is API work too.
  const kubeconfig = await harness.kubeconfig(cluster);
  const started = await begin(cluster);
  const kc = cluster.kubeConfig();
  const backlog = await countPhase(kc, 'Failed');
  restoredWhole(snapshot, backlog);
  const { fn, profileDir } = await startSweep(kubeconfig, policyFile, harness);
  let run: Awaited<ReturnType<typeof runTicks>>;
  let rssAtStartMiB = 0;
  let peak = 0;
  try {
    rssAtStartMiB = procMiB(fn.pid, 'VmRSS');
    run = await runTicks(fn);
    peak = peakRssMiB(fn.pid);
  } finally {
    await fn.stop();
  }
  const { ticks } = run;
  const failedLeft = await countPhase(kc, 'Failed');
  const deleted = ticks.reduce((n, t) => n + t.deleted, 0);
  return {
    runs: harness.runs,
    ...started,
    backlog,
    deleted,
    failedLeft,
    ...pace(ticks, deleted),
    ...cost(ticks, deleted, run),
    peakRssMiB: peak,
    rssAtStartMiB,
    nodeOptions: harness.nodeOptions ?? 'none',
    ...(profileDir ? { cpuProfile: perRemoval(cpuBreakdown(profileDir, harness.code), deleted) } : {}),
    perTick: ticks,
  };
}

/** The sweep's pace, and where its time went, from its ticks. */
function pace(ticks: Tick[], deleted: number) {
  const whole = ticks.at(-1)!.endS - ticks[0]!.startS;
  const sum = (f: (t: Tick) => number | undefined) => ticks.reduce((n, t) => n + (f(t) ?? 0), 0);
  const hasDecide = ticks.some((t) => t.decideMs !== undefined);
  const first = ticks[0]!;
  // The last tick that removed anything: after it, the sweep only confirms there is nothing left.
  const lastRemoving = ticks.findLast((t) => t.deleted > 0) ?? first;
  const last = ticks.at(-1)!;
  return {
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
  };
}
