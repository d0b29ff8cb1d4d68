// Bench `brakes` (issue 22, item 6): what the shared ledger (shared/brakes) costs.
//   sweep      on the scale bench's cluster and population (scale.ts, one snapshot, one run),
//              in this fixed order, each run on the same backlog refilled:
//                ceilingBefore > brakesOff > brakesOn > brakesOn2 > brakesOff2 > fannedOut >
//                fannedOutBrakes > ceiling (after)
//              brakes off: no limits, the ledger is never asked; on: NON_BINDING_BRAKES (a
//              million per 15 minutes in the cluster and per namespace, and a namespace rate),
//              which never bind. Off, on, on, off: a drift along the sequence (the scale bench
//              saw a run's place move its figures) weighs on both sides alike; the ceiling
//              before and after says how far it drifted. Events off in the one-instance runs, so
//              the ledger is their only difference. Per run: deletes/s, against both ceilings,
//              ledger requests and writes (the function's own requests, traced), the writes the
//              API server applied (a watch of the ConfigMap), writes per second while writing.
//   event path 100 Job pods failing through the bridge into podTerminated (as `requests`),
//              brakes off, large (never binding), large, off again, then tight
//              (maxNoOfPodsToEvictTotal 5: 5 removed, the rest deferred), and 10 pods failing
//              3 s and 6 s apart (sparser than the ledger's 2 s idle settle, and than that plus
//              its 2 s staleness), large budget: requests per cleaned pod,
//              ledger requests per removal, how long the deleting answer took.
// `npm run bench brakes -- 20000` (default 20000 pods, a quarter of them the Failed backlog);
// SCALE_RUNS=... picks and orders the sweep runs as in `scale`; BRAKES_PARTS=sweep or
// BRAKES_PARTS=events runs one part only; SCALE_SHARD_SIZE=100 makes a small smoke run fan out.
import { CoreV1Api } from '@kubernetes/client-node';
import type { Cluster } from '../harness/index.js';
import { withCluster } from './cluster.js';
import { countBy, requestKind, runEventPath, type EventPathOptions, type PodTimes } from './event-path.js';
import type { Trace } from './function-process.js';
import { writePolicy } from './pods.js';
import { spread } from './stats.js';
import { ledgerRequest, NON_BINDING_BRAKES, runScaleBench } from './scale.js';

export const BRAKES_RUNS = ['ceilingBefore', 'brakesOff', 'brakesOn', 'brakesOn2', 'brakesOff2', 'fannedOut', 'fannedOutBrakes'];

const round2 = (x: number) => Math.round(x * 100) / 100;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const mean = (xs: (number | undefined)[]) => {
  const v = xs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : undefined;
};

interface SweepRun {
  deleted: number;
  deletesPerSecond: number;
  writingDeletesPerSecond?: number;
  ledgerRequests?: number;
  ledgerWrites?: number;
  ledgerWritesPerSecond?: number;
  ledgerWritesApplied?: number;
  wallSeconds?: number;
  requestsPerPod?: number;
  shardAnswers?: number;
}

async function sweepPart(size: number, runs: string[]): Promise<Record<string, unknown>> {
  const all = (await runScaleBench([size], runs)) as Record<string, Record<string, unknown>>;
  const r = all[`pods${size}`]!;
  const run = (name: string) => r[name] as SweepRun | undefined;
  const before = (r.ceilingBefore as { deletesPerSecond: number } | undefined)?.deletesPerSecond;
  const after = (r.ceiling as { deletesPerSecond: number }).deletesPerSecond;
  const vs = (x: number | undefined, c: number | undefined) => (x === undefined || !c ? undefined : round2(x / c));
  const out: Record<string, unknown> = { sweepPods: size, sweepBacklog: (r.population as { failed: number }).failed, sequence: r.sequence };
  if (r.ceilingBefore) out.ceilingBefore = r.ceilingBefore;
  for (const name of runs) {
    const x = run(name);
    if (!x || name === 'ceilingBefore') continue;
    out[name] = { ...x, vsCeilingBefore: vs(x.deletesPerSecond, before), vsCeilingAfter: vs(x.deletesPerSecond, after) };
  }
  out.ceilingAfter = r.ceiling;
  // The pairs, averaged: what the brakes cost one instance, and the fanned-out instances.
  const off = mean([run('brakesOff')?.deletesPerSecond, run('brakesOff2')?.deletesPerSecond]);
  const on = mean([run('brakesOn')?.deletesPerSecond, run('brakesOn2')?.deletesPerSecond]);
  const offW = mean([run('brakesOff')?.writingDeletesPerSecond, run('brakesOff2')?.writingDeletesPerSecond]);
  const onW = mean([run('brakesOn')?.writingDeletesPerSecond, run('brakesOn2')?.writingDeletesPerSecond]);
  const ceilings = mean([before, after]);
  const ons = [run('brakesOn'), run('brakesOn2')].filter((x): x is SweepRun => x !== undefined);
  const onDeleted = ons.reduce((n, x) => n + x.deleted, 0);
  const onWrites = ons.reduce((n, x) => n + (x.ledgerWrites ?? 0), 0);
  const fo = run('fannedOut');
  const fb = run('fannedOutBrakes');
  out.sweepSummary = {
    ...(off === undefined ? {} : { offDeletesPerSecond: Math.round(off) }),
    ...(on === undefined ? {} : { onDeletesPerSecond: Math.round(on) }),
    ...(on !== undefined && off !== undefined ? { onVsOff: round2(on / off) } : {}),
    ...(onW !== undefined && offW !== undefined ? { onVsOffWriting: round2(onW / offW) } : {}),
    ...(ceilings ? { ceilingMean: Math.round(ceilings), offVsCeiling: vs(off, ceilings), onVsCeiling: vs(on, ceilings) } : {}),
    ...(before ? { ceilingAfterVsBefore: round2(after / before) } : {}),
    ...(ons.length
      ? {
          onLedgerWrites: onWrites,
          onRemovalsPerLedgerWrite: onWrites ? Math.round(onDeleted / onWrites) : null,
          onLedgerWritesPerSecond: mean(ons.map((x) => x.ledgerWritesPerSecond)),
        }
      : {}),
    ...(fo && fb
      ? {
          fannedOutOnVsOff: round2(fb.deletesPerSecond / fo.deletesPerSecond),
          fannedOutShardAnswersOffOn: [fo.shardAnswers, fb.shardAnswers],
          fannedOutLedgerWritesApplied: fb.ledgerWritesApplied,
          fannedOutRemovalsPerLedgerWrite: fb.ledgerWritesApplied ? Math.round(fb.deleted / fb.ledgerWritesApplied) : null,
          fannedOutLedgerWritesPerSecond: fb.wallSeconds ? round2((fb.ledgerWritesApplied ?? 0) / fb.wallSeconds) : undefined,
          fannedOutRequestsPerPodOffOn: [fo.requestsPerPod, fb.requestsPerPod],
        }
      : {}),
  };
  return out;
}

type KubeTrace = Extract<Trace, { trace: 'kube' }>;
type AnswerTrace = Extract<Trace, { trace: 'answer' }>;
const EVENT_PODS = { jobs: 2, podsPerJob: 50 };
/** Failures further apart than the idle settle (2 s), and than it plus the ledger's staleness (2 s more). */
const SPARSE = { pods: 10, spacingMs: [3000, 6000] };
/** Past the ledger's idle settle (2 s, brakes.ts): its write is part of what a burst costs. */
const LINGER_MS = 3000;

/** Every pod failed and answered deleted or deferred (a tight budget leaves pods in place). */
const allAnswered = (total: number) => (pods: Map<string, PodTimes>, traces: readonly Trace[]) => {
  if (pods.size < total || [...pods.values()].some((p) => p.failedSeen === undefined)) return false;
  const answered = new Set(
    traces.filter((t): t is AnswerTrace => t.trace === 'answer' && (t.outcome === 'deleted' || t.outcome === 'deferred')).map((t) => t.pod),
  );
  return [...pods.entries()].every(([key, p]) => p.goneSeen !== undefined || answered.has(key));
};

async function eventRun(
  cluster: Cluster,
  o: {
    namespace: string;
    ledger: string;
    policy: string;
    workload: EventPathOptions['workload'];
    pods: number;
    spacingMs?: number;
    until?: EventPathOptions['until'];
    limit?: number;
  },
) {
  const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
  // The ledger's namespace exists where kube-tidy runs (the chart's): its creation is not counted.
  await core.createNamespace({ body: { metadata: { name: o.ledger } } });
  const shape = o.workload === 'jobs' ? EVENT_PODS : { jobs: 1, podsPerJob: o.pods };
  const run = await runEventPath(cluster, o.policy, {
    namespace: o.namespace,
    workload: o.workload,
    ...shape,
    env: { RECORD_EVENTS: 'false', BRAKES_NAMESPACE: o.ledger },
    lingerMs: LINGER_MS,
    ...(o.spacingMs === undefined ? {} : { spacingMs: o.spacingMs }),
    ...(o.until ? { until: o.until } : {}),
  });
  const requests = run.traces.filter((t): t is KubeTrace => t.trace === 'kube');
  const ledger = requests.map((r) => ledgerRequest(r.method, r.url, o.ledger)).filter(Boolean);
  const ledgerWrites = ledger.filter((k) => k === 'write').length;
  const answers = run.traces.filter((t): t is AnswerTrace => t.trace === 'answer' && t.method === 'POST');
  const cleaned = answers.filter((a) => a.outcome === 'deleted').length;
  const deferred = answers.filter((a) => a.outcome === 'deferred').length;
  const per = (n: number, d: number) => (d ? round3(n / d) : null);
  return {
    pods: run.pods.size,
    ...(o.spacingMs === undefined ? {} : { spacingMs: o.spacingMs }),
    cleaned,
    ...(deferred ? { deferredAnswers: deferred, podsDeferred: new Set(answers.filter((a) => a.outcome === 'deferred').map((a) => a.pod)).size } : {}),
    ...(o.limit === undefined ? {} : { limit: o.limit, withinLimit: cleaned <= o.limit }),
    eventsDelivered: run.bridge.delivered,
    answers: countBy(answers, (a) => (a.status === 200 ? String(a.outcome) : `http ${a.status}`)),
    requests: requests.length,
    byKind: countBy(requests, (r) => requestKind(r.method, r.url)),
    requestsPerCleanedPod: per(requests.length, cleaned),
    ledgerRequests: ledger.length,
    ledgerReads: ledger.length - ledgerWrites,
    ledgerWrites,
    ledgerRequestsPerRemoval: per(ledger.length, cleaned),
    ledgerWritesPerRemoval: per(ledgerWrites, cleaned),
    ...(deferred ? { ledgerRequestsPerAnswer: per(ledger.length, cleaned + deferred) } : {}),
    // What a removal waits for: the answer that deleted (the ledger's writes are in it), and Failed to gone.
    deletingAnswerMs: spread(answers.filter((a) => a.outcome === 'deleted').map((a) => a.t - a.t0)),
    failedToGoneMs: spread([...run.pods.values()].flatMap((p) => (p.failedSeen !== undefined && p.goneSeen !== undefined ? [p.goneSeen - p.failedSeen] : []))),
  };
}

async function eventsPart(): Promise<Record<string, unknown>> {
  return withCluster('bench-brakes-events', 10, async (cluster) => {
    const plain = writePolicy();
    const large = writePolicy(NON_BINDING_BRAKES);
    const tight = writePolicy({ maxNoOfPodsToEvictTotal: 5 });
    const total = EVENT_PODS.jobs * EVENT_PODS.podsPerJob;
    // A ledger of its own per run: the cluster counter is shared by every policy with a total
    // limit and the same window, so the large run's removals would spend the tight run's 5.
    // Off, large, large, off (as the sweep's pairs), then the tight budget and sparse failures.
    const off = (n: string) => eventRun(cluster, { namespace: `ev-off${n}`, ledger: `brakes-off${n}`, policy: plain, workload: 'jobs', pods: total });
    const on = (n: string) => eventRun(cluster, { namespace: `ev-large${n}`, ledger: `brakes-large${n}`, policy: large, workload: 'jobs', pods: total });
    const r: Record<string, Awaited<ReturnType<typeof eventRun>>> = {};
    r.eventPathOff = await off('');
    r.eventPathLarge = await on('');
    r.eventPathLarge2 = await on('2');
    r.eventPathOff2 = await off('2');
    r.eventPathTight = await eventRun(cluster, {
      namespace: 'ev-tight',
      ledger: 'brakes-tight',
      policy: tight,
      workload: 'jobs',
      pods: total,
      until: allAnswered(total),
      limit: 5,
    });
    for (const spacingMs of SPARSE.spacingMs)
      r[`eventPathSparse${spacingMs / 1000}s`] = await eventRun(cluster, {
        namespace: `ev-sparse${spacingMs}`,
        ledger: `brakes-sparse${spacingMs}`,
        policy: large,
        workload: 'bare-pods',
        pods: SPARSE.pods,
        spacingMs,
      });
    const pair = (a: string, b: string, f: (x: Awaited<ReturnType<typeof eventRun>>) => number | null) =>
      round3(mean([f(r[a]!) ?? undefined, f(r[b]!) ?? undefined]) ?? NaN);
    return {
      eventPathSequence: 'off > large > large2 > off2 > tight > sparse3s > sparse6s',
      ...r,
      eventPathSummary: {
        requestsPerCleanedPodOffOn: [
          pair('eventPathOff', 'eventPathOff2', (x) => x.requestsPerCleanedPod),
          pair('eventPathLarge', 'eventPathLarge2', (x) => x.requestsPerCleanedPod),
        ],
        ledgerRequestsPerRemovalLarge: pair('eventPathLarge', 'eventPathLarge2', (x) => x.ledgerRequestsPerRemoval),
        ledgerRequestsPerRemovalTight: r.eventPathTight!.ledgerRequestsPerRemoval,
        ledgerRequestsPerAnswerTight: r.eventPathTight!.ledgerRequestsPerAnswer,
        ledgerRequestsPerRemovalSparse: SPARSE.spacingMs.map((ms) => r[`eventPathSparse${ms / 1000}s`]!.ledgerRequestsPerRemoval),
        deletingAnswerP50MsOffOn: [
          pair('eventPathOff', 'eventPathOff2', (x) => x.deletingAnswerMs.p50),
          pair('eventPathLarge', 'eventPathLarge2', (x) => x.deletingAnswerMs.p50),
        ],
        goneAnswersOffOn: [
          pair('eventPathOff', 'eventPathOff2', (x) => x.answers.gone ?? 0),
          pair('eventPathLarge', 'eventPathLarge2', (x) => x.answers.gone ?? 0),
        ],
      },
    };
  });
}

export async function runBrakesBench(size = 20_000): Promise<object> {
  const parts = process.env.BRAKES_PARTS?.split(',').filter(Boolean) ?? ['sweep', 'events'];
  const runs = process.env.SCALE_RUNS?.split(',').filter(Boolean) ?? BRAKES_RUNS;
  return {
    ...(parts.includes('sweep') ? await sweepPart(size, runs) : {}),
    ...(parts.includes('events') ? await eventsPart() : {}),
  };
}
