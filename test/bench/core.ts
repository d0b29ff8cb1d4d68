import { performance } from 'node:perf_hooks';
import { decide } from '../../shared/selection/decide.js';
import { loadPolicy } from '../../shared/policy/load.js';
import { spread } from './stats.js';
import { syntheticPods } from './synthetic.js';

// Benchmark (not a timed test): pod evaluations per second of the pure core for a mixed
// policy over a synthetic 100,000-pod snapshot, and the memory it takes. An evaluation is
// one pod judged against the whole policy (all three strategies and, where selected, the gate).
// Timed two ways: each decide right after a forced full GC (which also gives the memory
// figures), and back to back as a busy process runs them. They differ by about 40 ms whatever
// the decide allocates (the same at 2% and 25% finished pods), and neither a larger young
// generation nor keeping bytecode changes it: most likely V8 still sweeping the 100 MB heap
// the full GC left, on the same two cores.

const POLICY = {
  apiVersion: 'descheduler/v1alpha2',
  kind: 'DeschedulerPolicy',
  maxNoOfPodsToEvictPerNamespace: 500,
  profiles: [
    {
      name: 'mixed',
      pluginConfig: [
        { name: 'DefaultEvictor', args: { podProtections: { defaultDisabled: ['FailedBarePods'] } } },
        {
          name: 'PodLifeTime',
          args: {
            states: ['Succeeded'],
            conditions: [{ type: 'Ready', status: 'False', minTimeSinceLastTransitionSeconds: 4 * 3600 }],
            namespaces: { exclude: ['team-7'] },
          },
        },
        {
          name: 'RemoveFailedPods',
          args: {
            exitCodes: [3, '128-255'],
            reasons: ['OOMKilled', 'Error'],
            minPodLifetimeSeconds: 600,
            labelSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['batch', 'serving'] }] },
          },
        },
        { name: 'RemovePodsHavingTooManyRestarts', args: { podRestartThreshold: 10, states: ['Running', 'CrashLoopBackOff'] } },
      ],
      plugins: { deschedule: { enabled: ['PodLifeTime', 'RemoveFailedPods', 'RemovePodsHavingTooManyRestarts'] } },
    },
  ],
};

export interface CoreBenchResult {
  pods: number;
  terminalShare: number;
  iterations: number;
  evaluationsPerSecond: number;
  msPerDecide: { median: number; min: number; max: number };
  evaluationsPerSecondBackToBack: number;
  msPerDecideBackToBack: { median: number; min: number; max: number };
  decisionsPerRun: number;
  keptPerRun: number;
  heapMiBSnapshot: number;
  peakRssMiB: number;
  peakHeapDuringDecideMiB: number;
}

function summary(times: number[]): { median: number; min: number; max: number } {
  const { p50, min, max } = spread(times);
  return { median: p50, min, max };
}

function mib(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}

export function runCoreBench(podCount = 100_000, iterations = 15, terminal = 0.25): CoreBenchResult {
  const now = Date.parse('2026-06-01T12:00:00Z');
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const pods = syntheticPods(podCount, now, 42, terminal);
  gc?.();
  const heapSnapshot = process.memoryUsage().heapUsed - heapBefore;
  const { policy } = loadPolicy(POLICY);

  // Warm up so the JIT has compiled the hot paths before timing.
  for (let i = 0; i < 3; i++) decide(policy, { pods }, now);
  const times: number[] = [];
  let peakHeap = 0;
  let peakRss = 0;
  let last = decide(policy, { pods }, now);
  for (let i = 0; i < iterations; i++) {
    gc?.();
    const base = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    last = decide(policy, { pods }, now);
    times.push(performance.now() - t0);
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed - base);
    peakRss = Math.max(peakRss, m.rss);
  }
  const backToBack: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    decide(policy, { pods }, now);
    backToBack.push(performance.now() - t0);
  }
  const afterGc = summary(times);
  const busy = summary(backToBack);
  return {
    pods: podCount,
    terminalShare: terminal,
    iterations,
    evaluationsPerSecond: Math.round(podCount / (afterGc.median / 1000)),
    msPerDecide: afterGc,
    evaluationsPerSecondBackToBack: Math.round(podCount / (busy.median / 1000)),
    msPerDecideBackToBack: busy,
    decisionsPerRun: last.decisions.length,
    keptPerRun: last.kept.length,
    heapMiBSnapshot: mib(heapSnapshot),
    peakRssMiB: mib(peakRss),
    peakHeapDuringDecideMiB: mib(peakHeap),
  };
}
