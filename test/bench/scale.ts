// Bench `scale` (issue 15): clearing a backlog of Failed pods on a big cluster, kube-tidy side
// by side with its anchors on the same population recipe (scale/populate.ts):
//   kube-tidy  sweeps (the production handler in a process of its own) repeated until the
//              backlog is gone, each inside the default 50 s budget: how many function
//              timeouts, deletes/s, API requests per pod, peak RSS. 1 instance with Events off,
//              with Events capped (the default) and with one Event per pod; N instances fanned
//              out through shards, as the image runs them (the production bundle on Node 22;
//              the bench plays the broker: each instance takes one shard
//              at a time, as Knative with containerConcurrency 1 would).
//   ceiling    a plain HTTP client (scale/plain-client.mjs), 32 DELETEs in flight with uid
//              preconditions, no client limit.
//   PodGC      kube-controller-manager with --terminated-pod-gc-threshold=100, its client at
//              its default QPS 20: deletions counted over a minute.
//   event path one new Failed pod sent to podTerminated while the first sweep runs: time from
//              its Failed status to gone.
// PodGC is off (--controllers=...,-podgc) in the kube-tidy clusters, so the backlog
// stays put for kube-tidy. Sizes: `npm run bench scale -- 20000,50000` (default 20000).
// Opt-in runs (named in SCALE_RUNS, or by `npm run bench brakes`, brakes.ts): the ceiling
// measured first too (`ceilingBefore`), and the brakes' cost (issue 22): one instance with
// brakes off (`brakesOff`, `brakesOff2`: no limits, the ledger untouched) and on but far from
// binding (`brakesOn`, `brakesOn2`), four fanned-out instances with them (`fannedOutBrakes`),
// each with the writes to the ledger ConfigMap seen by a watch of it.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { httpMessage, toApiServerSourceEvent } from '../../shared/cloudevents/index.js';
import type { Cluster } from '../harness/index.js';
import { withCluster } from './cluster.js';
import { TRACED_ENTRY, withFunction, type TracedFunction } from './function-process.js';
import { functionIdentities, type FunctionIdentities } from '../harness/function-identity.js';
import { Watch } from '@kubernetes/client-node';
import { countPhase, populate, prepareCluster, SCALE_POLICY, unthrottled } from './scale/populate.js';
import { plainClient } from './scale/ceiling.js';
import { bundle, BUNDLE_FILE } from '../../infra/bundle/build.js';
import { node22 } from '../../infra/bundle/node22.js';
import { startServer } from '../../infra/bundle/serving.js';
import { dirname } from 'node:path';

const BUDGET_S = 50;
// SCALE_RUNS=name,name limits a bench to some runs (names as in the output; `podGc` for PodGC).
const envRuns = process.env.SCALE_RUNS?.split(',').filter(Boolean);
const INSTANCES = 4;
/** Where the ledger lives for the bench's functions: BRAKES_NAMESPACE's default, the identities' namespace. */
const LEDGER_NAMESPACE = 'kube-tidy';
const LEDGER_NAME = 'kube-tidy-brakes';

/**
 * Brakes on, but far from binding (issue 22's benchmark): the descheduler's total and
 * per-namespace limits and a namespace rate, each a million per 15 minutes. The per-namespace
 * limit and the rate share their counters (same scope and window): two counters per removal,
 * the cluster's and its namespace's.
 */
export const NON_BINDING_BRAKES = {
  maxNoOfPodsToEvictTotal: 1_000_000,
  maxNoOfPodsToEvictPerNamespace: 1_000_000,
  kubeTidy: { brakes: { rates: [{ max: 1_000_000, per: '15m', scope: 'namespace' }] } },
};

function writeScalePolicy(extra: object = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-scale-'));
  const file = join(dir, 'policy.json');
  writeFileSync(file, JSON.stringify({ ...SCALE_POLICY, ...extra }));
  return file;
}

/** The policies of a scale run: without brakes (no limits, so the ledger is never used), and with NON_BINDING_BRAKES. */
interface Policies {
  plain: string;
  brakes: string;
}

/** VmHWM: the peak resident set so far; VmRSS: now. */
export const procMiB = (pid: number, field: 'VmHWM' | 'VmRSS'): number => {
  try {
    const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : 0;
  } catch {
    return 0;
  }
};
export const peakRssMiB = (pid: number) => procMiB(pid, 'VmHWM');

interface SweepAnswer {
  status: number;
  body: {
    outcome?: string;
    summary?: {
      selected: number;
      outcomes: Record<string, number>;
      listMs: number;
      durationMs: number;
      pages: number;
      podsSeen: number;
      throttled: number;
      throttleWaitMs: number;
      eventsSummarised: number;
      stoppedBy?: string;
      fannedOut?: { shards: number; pods: number; notPosted: number };
      brakes?: { deferred: number; ledgerRequests: number };
    };
    outcomes?: Record<string, number>;
    failures?: { transient: number; refused: number };
  };
}

async function post(url: string, headers: Record<string, string>, body: string): Promise<SweepAnswer> {
  const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(120_000) });
  return { status: res.status, body: (await res.json()) as SweepAnswer['body'] };
}
const tick = (url: string) => post(url, { 'content-type': 'application/json' }, '{}');

/** A new Failed pod delivered to podTerminated as the bridge would: ms from Failed to gone. */
async function eventPathProbe(kc: KubeConfig, podTerminatedUrl: string, server: string): Promise<number> {
  const { core, close } = unthrottled(kc);
  const namespace = 'scale-0';
  const name = `probe-${Date.now()}`;
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name },
      spec: { nodeName: 'scale-node-0', restartPolicy: 'Never', containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
    },
  });
  const { PatchStrategy, setHeaderOptions } = await import('@kubernetes/client-node');
  const failed = await core.patchNamespacedPodStatus(
    { namespace, name, body: { status: { phase: 'Failed' } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  const t0 = performance.now();
  const m = httpMessage(toApiServerSourceEvent('update', JSON.parse(JSON.stringify(failed)), server));
  await post(podTerminatedUrl, m.headers, m.body);
  for (;;) {
    try {
      await core.readNamespacedPod({ namespace, name });
    } catch {
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  close();
  return Math.round(performance.now() - t0);
}

const kubeRequests = (fns: TracedFunction[]) => fns.reduce((n, f) => n + f.traces.filter((t) => t.trace === 'kube').length, 0);

/** A request to the brakes' ledger: GET/PUT of the ConfigMap, or its creation (POST in its namespace: nothing else of one instance creates ConfigMaps there). */
export function ledgerRequest(method: string, url: string, namespace = LEDGER_NAMESPACE): 'read' | 'write' | undefined {
  const path = new URL(url).pathname;
  if (path === `/api/v1/namespaces/${namespace}/configmaps/${LEDGER_NAME}`) return method === 'GET' ? 'read' : 'write';
  if (method === 'POST' && path === `/api/v1/namespaces/${namespace}/configmaps`) return 'write';
  return undefined;
}

/** The ledger's cost in one instance's sweeps, from its traced requests (client side, exact). */
function ledgerCost(fn: TracedFunction, sweeps: NonNullable<SweepAnswer['body']['summary']>[], deleted: number, writingSeconds: number) {
  const kinds = fn.traces.flatMap((t) => (t.trace === 'kube' ? [{ t: t.t, kind: ledgerRequest(t.method, t.url) }] : [])).filter((x) => x.kind);
  const writes = kinds.filter((x) => x.kind === 'write');
  const perSecond = new Map<number, number>();
  for (const w of writes) perSecond.set(Math.floor(w.t / 1000), (perSecond.get(Math.floor(w.t / 1000)) ?? 0) + 1);
  return {
    ledgerRequests: kinds.length,
    ledgerReads: kinds.length - writes.length,
    ledgerWrites: writes.length,
    // As the passes counted them (summary.brakes.ledgerRequests): the same requests, from inside.
    ledgerRequestsInSummaries: sweeps.reduce((n, s) => n + (s.brakes?.ledgerRequests ?? 0), 0),
    removalsPerLedgerWrite: writes.length ? Math.round(deleted / writes.length) : null,
    // At the sweep's pace: over the writing phases (the list reads no ledger).
    ledgerWritesPerSecond: Math.round((writes.length / Math.max(writingSeconds, 1e-3)) * 100) / 100,
    ledgerWritesPeakPerSecond: Math.max(0, ...perSecond.values()),
  };
}

/**
 * Writes to the ledger ConfigMap as the API server applied them (ADDED/MODIFIED from a watch
 * started at its current resourceVersion): any number of instances, refused (409) writes not
 * included.
 */
async function watchLedger(kc: KubeConfig): Promise<() => Promise<{ ledgerWritesApplied: number; ledgerWritesAppliedSpanSeconds: number }>> {
  const { core, close } = unthrottled(kc);
  const list = await core.listNamespacedConfigMap({ namespace: LEDGER_NAMESPACE, fieldSelector: `metadata.name=${LEDGER_NAME}` });
  close();
  const seen: number[] = [];
  const req = await new Watch(kc).watch(
    `/api/v1/namespaces/${LEDGER_NAMESPACE}/configmaps`,
    { fieldSelector: `metadata.name=${LEDGER_NAME}`, resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: false },
    (type) => void ((type === 'ADDED' || type === 'MODIFIED') && seen.push(performance.now())),
    () => {},
  );
  return async () => {
    await new Promise((r) => setTimeout(r, 1000)); // the last events in flight
    req.abort();
    return { ledgerWritesApplied: seen.length, ledgerWritesAppliedSpanSeconds: seen.length > 1 ? Math.round((seen.at(-1)! - seen[0]!) / 100) / 10 : 0 };
  };
}

/** Sweeps with one instance until no Failed pod is left; every sweep inside the default budget. */
async function oneInstance(cluster: Cluster, ids: FunctionIdentities, policy: string, env: Record<string, string>, probe: boolean) {
  const failed = await countPhase(cluster.kubeConfig(), 'Failed');
  const base = { POLICY_FILE: policy, SWEEP_TIME_BUDGET_SECONDS: String(BUDGET_S), ...env };
  return withFunction('sweep', TRACED_ENTRY, { ...base, KUBECONFIG: ids.kubeconfig('sweep') }, async (fn) =>
    withFunction('podTerminated', TRACED_ENTRY, { ...base, KUBECONFIG: ids.kubeconfig('podTerminated') }, async (pt) => {
      const rssAtStartMiB = procMiB(fn.pid, 'VmRSS');
      const t0 = performance.now();
      const sweeps: NonNullable<SweepAnswer['body']['summary']>[] = [];
      let eventPathMs: number | undefined;
      const probing = probe
        ? new Promise<void>((r) => setTimeout(r, 3000)).then(
            async () => void (eventPathMs = await eventPathProbe(cluster.kubeConfig(), pt.url, cluster.kubeConfig().getCurrentCluster()!.server)),
          )
        : Promise.resolve();
      for (let i = 0; i < 20; i++) {
        const a = await tick(fn.url);
        sweeps.push(a.body.summary!);
        if ((a.body.summary?.outcomes.deleted ?? 0) === 0) break;
      }
      const ms = performance.now() - t0;
      await probing;
      const deleted = sweeps.reduce((n, s) => n + (s.outcomes.deleted ?? 0), 0);
      const working = sweeps.filter((s) => (s.outcomes.deleted ?? 0) > 0);
      const writingSeconds = working.reduce((n, s) => n + s.durationMs - s.listMs, 0) / 1000;
      const ledger = ledgerCost(fn, sweeps, deleted, writingSeconds);
      const deferred = sweeps.reduce((n, s) => n + (s.brakes?.deferred ?? 0), 0);
      return {
        backlog: failed,
        deleted,
        timeoutsNeeded: working.length,
        deletesPerSecond: Math.round(deleted / (working.reduce((n, s) => n + s.durationMs, 0) / 1000)),
        // The writing phase alone (after the list and the decisions): what the ceiling loop measures.
        writingDeletesPerSecond: Math.round(deleted / (working.reduce((n, s) => n + s.durationMs - s.listMs, 0) / 1000)),
        wallSeconds: Math.round(ms / 100) / 10,
        listSecondsFirstSweep: Math.round(sweeps[0]!.listMs / 100) / 10,
        podsListedFirstSweep: sweeps[0]!.podsSeen,
        requestsPerPod: Math.round((kubeRequests([fn]) / deleted) * 100) / 100,
        // The dev entry (functions-framework + tsx transpiling the sources) is most of it: the
        // pass's own share is the growth over the process at rest.
        peakRssMiB: peakRssMiB(fn.pid),
        rssAtStartMiB,
        throttled: sweeps.reduce((n, s) => n + s.throttled, 0),
        eventsSummarised: sweeps.reduce((n, s) => n + s.eventsSummarised, 0),
        ...(eventPathMs === undefined ? {} : { eventPathMsUnderBacklog: eventPathMs }),
        // Without limits the ledger is never asked: only a run with brakes shows these.
        ...(ledger.ledgerRequests || ledger.ledgerRequestsInSummaries ? ledger : {}),
        ...(deferred ? { deferred, stoppedBy: sweeps.map((s) => s.stoppedBy ?? '') } : {}),
      };
    }),
  );
}

/** A sweep process as the image runs it: the production bundle on Node 22 (its RSS is what a function instance holds). */
export async function bundled(env: Record<string, string>, file = BUNDLE_FILE): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const p = startServer(node22(), [file], { FUNCTION_TARGET: 'sweep', PORT: '0', ...env }, dirname(file));
  const { port } = await p.serving;
  return { url: `http://127.0.0.1:${port}/`, pid: p.child.pid!, stop: async () => void (p.child.kill('SIGTERM'), await p.exited) };
}

/** A planner and N-1 more instances (production bundles); the bench is the broker. Repeated until the backlog is gone. */
async function fannedOut(cluster: Cluster, ids: FunctionIdentities, policy: string, n: number) {
  const failed = await countPhase(cluster.kubeConfig(), 'Failed');
  const queue: { headers: Record<string, string>; body: string }[] = [];
  const broker = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      queue.push({
        headers: Object.fromEntries(
          Object.entries(req.headers)
            .filter(([k]) => k.startsWith('ce-') || k === 'content-type')
            .map(([k, v]) => [k, String(v)]),
        ),
        body,
      });
      res.writeHead(202).end();
    });
  });
  broker.listen(0, '127.0.0.1');
  await once(broker, 'listening');
  const sink = `http://127.0.0.1:${(broker.address() as { port: number }).port}/`;
  // SCALE_SHARD_SIZE: smaller shards than the default 1000, so a small smoke run fans out too.
  const shardSize: Record<string, string> = process.env.SCALE_SHARD_SIZE ? { SWEEP_SHARD_SIZE: process.env.SCALE_SHARD_SIZE } : {};
  const env = {
    POLICY_FILE: policy,
    KUBECONFIG: ids.kubeconfig('sweep'),
    SWEEP_TIME_BUDGET_SECONDS: String(BUDGET_S),
    RECORD_EVENTS: 'false',
    SWEEP_SHARD_SINK: sink,
    ...shardSize,
  };
  const fns = await Promise.all(Array.from({ length: n }, () => bundled(env)));
  try {
    const rssAtStartMiB = fns.map((f) => procMiB(f.pid, 'VmRSS'));
    const t0 = performance.now();
    let rounds = 0;
    let shardAnswers = 0;
    let deleted = 0;
    let requests = 0;
    let planMs = 0;
    for (; rounds < 10; rounds++) {
      const planner = fns[rounds % n]!;
      const plan = await tick(planner.url);
      const sum = plan.body.summary;
      deleted += sum?.outcomes.deleted ?? 0;
      requests += (sum as { requests?: number } | undefined)?.requests ?? 0;
      planMs += sum?.durationMs ?? 0;
      // Every instance takes shards as they come, one at a time each (the planner too, once done).
      await Promise.all(
        fns.map(async (fn) => {
          while (queue.length) {
            const m = queue.shift()!;
            const a = await post(fn.url, m.headers, m.body);
            shardAnswers++;
            deleted += a.body.outcomes?.deleted ?? 0;
            requests += (a.body as { requests?: number }).requests ?? 0;
            if (a.status !== 200) queue.push(m); // a broker redelivers on 5xx
          }
        }),
      );
      if ((sum?.selected ?? 0) === 0 && !sum?.fannedOut) break;
    }
    const ms = performance.now() - t0;
    return {
      instances: n,
      backlog: failed,
      deleted,
      rounds,
      shardAnswers,
      wallSeconds: Math.round(ms / 100) / 10,
      planSeconds: Math.round(planMs / 100) / 10,
      deletesPerSecond: Math.round(deleted / (ms / 1000)),
      requestsPerPod: Math.round((requests / Math.max(1, deleted)) * 100) / 100,
      peakRssMiBPerInstance: fns.map((f) => peakRssMiB(f.pid)),
      rssAtStartMiBPerInstance: rssAtStartMiB,
    };
  } finally {
    await Promise.all(fns.map((f) => f.stop()));
    broker.close();
  }
}

/** The ceiling: 32 DELETEs in flight with uid preconditions, no client-side limit (scale/plain-client.mjs, a plain HTTP client in a process of its own). */
export async function ceiling(ids: FunctionIdentities) {
  // As the sweep's own account: the same API Priority and Fairness level kube-tidy gets.
  const run = await plainClient(ids.kubeconfig('sweep'));
  return {
    deleted: run.deleted,
    seconds: Math.round(run.writeSeconds * 10) / 10,
    deletesPerSecond: Math.round(run.deleted / run.writeSeconds),
    cpuMsPerDelete: Math.round((run.cpuMs.delete / Math.max(1, run.deleted)) * 100) / 100,
  };
}

async function oneSize(size: number, policies: Policies, only: string[] | undefined) {
  const policy = policies.plain;
  return withCluster(
    `bench-scale-${size}`,
    1,
    async (cluster) => {
      const kc = cluster.kubeConfig();
      const namespaces = await prepareCluster(kc);
      // Every kube-tidy process (and the ceiling loop) as its function's ServiceAccount, with the
      // generated RBAC: API Priority and Fairness treats them as it would in a cluster (the
      // harness's admin is exempt from it).
      const { core } = unthrottled(kc);
      for (const name of ['kube-tidy', 'kube-tidy-kueue']) await core.createNamespace({ body: { metadata: { name } } });
      const ids = await functionIdentities(kc, cluster.kubeconfigPath, 'kube-tidy', 'kube-tidy-kueue');
      const pop = await populate(kc, namespaces, size, 0);
      const refill = (round: number) => populate(kc, namespaces, size, round, true);
      const r: Record<string, unknown> = { population: { ...pop, writesPerSecond: Math.round(((pop.total + pop.failed + pop.succeeded) / pop.ms) * 1000) } };
      // Each run on a fresh backlog of the same size (refilled after the one before). Opt-in
      // runs only when named; `ledger`: the writes the API server applied to the brakes' ledger
      // during the run are counted (a watch).
      const runs: { name: string; run: () => Promise<object>; optIn?: true; ledger?: true }[] = [
        { name: 'oneInstanceEventsOff', run: () => oneInstance(cluster, ids, policy, { RECORD_EVENTS: 'false' }, true) },
        { name: 'oneInstanceEventsCapped', run: () => oneInstance(cluster, ids, policy, {}, false) },
        { name: 'oneInstanceEventPerPod', run: () => oneInstance(cluster, ids, policy, { SWEEP_EVENTS_PER_PASS: '1000000000' }, false) },
        // Above the default client rate: is the rate limit what keeps one instance from the ceiling?
        {
          name: 'oneInstanceEventsOffQps1000',
          run: () => oneInstance(cluster, ids, policy, { RECORD_EVENTS: 'false', KUBE_CLIENT_QPS: '1000', KUBE_CLIENT_BURST: '2000' }, false),
        },
        { name: 'fannedOut', run: () => fannedOut(cluster, ids, policy, INSTANCES), ledger: true },
        // The ceiling before the runs as well as after them (below): how much the sequence moved it.
        { name: 'ceilingBefore', run: () => ceiling(ids), optIn: true },
        // The brakes' cost (issue 22): Events off in both, so the ledger is the only difference;
        // no event-path probe (it would share the ledger). Run as off, on, on, off: a drift along
        // the sequence weighs on both sides alike.
        { name: 'brakesOff', run: () => oneInstance(cluster, ids, policy, { RECORD_EVENTS: 'false' }, false), optIn: true, ledger: true },
        { name: 'brakesOn', run: () => oneInstance(cluster, ids, policies.brakes, { RECORD_EVENTS: 'false' }, false), optIn: true, ledger: true },
        { name: 'brakesOn2', run: () => oneInstance(cluster, ids, policies.brakes, { RECORD_EVENTS: 'false' }, false), optIn: true, ledger: true },
        { name: 'brakesOff2', run: () => oneInstance(cluster, ids, policy, { RECORD_EVENTS: 'false' }, false), optIn: true, ledger: true },
        // Shards take the event path's removal (one-pod.ts), so its reservations: every instance writes the one ledger.
        { name: 'fannedOutBrakes', run: () => fannedOut(cluster, ids, policies.brakes, INSTANCES), optIn: true, ledger: true },
      ];
      const wanted = (x: { name: string; optIn?: true }) => (only ? only.includes(x.name) : !x.optIn);
      let round = 0;
      // In SCALE_RUNS's order when given: a run's place in the sequence is a variable too.
      const order = (name: string) => only?.indexOf(name) ?? 0;
      const sequence: string[] = [];
      for (const x of runs.filter(wanted).sort((a, b) => order(a.name) - order(b.name))) {
        if (round > 0) await refill(round);
        round++;
        sequence.push(x.name);
        const ledger = x.ledger ? await watchLedger(kc) : undefined;
        const result = await x.run();
        r[x.name] = ledger ? { ...result, ...(await ledger()) } : result;
      }
      if (round > 0) await refill(round);
      r.ceiling = await ceiling(ids);
      r.sequence = [...sequence, 'ceiling'].join(' > ');
      const c = (r.ceiling as { deletesPerSecond: number }).deletesPerSecond;
      const ratios: Record<string, number> = {};
      for (const { name } of runs) {
        const run = r[name] as { deletesPerSecond: number; writingDeletesPerSecond?: number } | undefined;
        if (!run) continue;
        ratios[name] = Math.round((run.deletesPerSecond / c) * 100) / 100;
        if (run.writingDeletesPerSecond) ratios[`${name}Writing`] = Math.round((run.writingDeletesPerSecond / c) * 100) / 100;
      }
      r.ratioToCeiling = ratios;
      return r;
    },
    { controllerManagerArgs: ['--controllers=*,-nodelifecycle,-podgc'] },
  );
}

/** PodGC at its defaults but the threshold: deletions of terminated pods over `seconds`. */
async function podGc(size: number, seconds = 60) {
  return withCluster(
    'bench-scale-podgc',
    1,
    async (cluster) => {
      const kc = cluster.kubeConfig();
      const namespaces = await prepareCluster(kc);
      // PodGC starts while the pods are written: count from the end of the population on.
      const pop = await populate(kc, namespaces, size, 0);
      const terminal = async () => (await countPhase(kc, 'Failed')) + (await countPhase(kc, 'Succeeded'));
      const before = await terminal();
      await new Promise((r) => setTimeout(r, seconds * 1000));
      const after = await terminal();
      const rate = (before - after) / seconds;
      return {
        population: pop.total,
        terminalAtStart: before,
        deletedIn: `${seconds} s`,
        deleted: before - after,
        deletesPerSecond: Math.round(rate * 10) / 10,
        secondsToClearBacklog: Math.round(before / Math.max(rate, 0.1)),
      };
    },
    { controllerManagerArgs: ['--terminated-pod-gc-threshold=100'] },
  );
}

/** `runs`: the runs and their order (SCALE_RUNS by default; every run but the opt-in ones when neither). */
export async function runScaleBench(sizes: number[], runs: string[] | undefined = envRuns): Promise<object> {
  const policies = { plain: writeScalePolicy(), brakes: writeScalePolicy(NON_BINDING_BRAKES) };
  // The fanned-out instances run the production bundle.
  if (!runs || runs.some((name) => name.startsWith('fannedOut'))) await bundle();
  const out: Record<string, unknown> = {};
  for (const size of sizes) out[`pods${size}`] = await oneSize(size, policies, runs);
  if (!runs || runs.includes('podGc')) out.podGc = await podGc(Math.min(...sizes));
  return out;
}
