// The storm's rows (issue 45, item 6), each on the same storm of Failed pods created again:
//   ceiling  scale/plain-client.mjs: node:https, 32 DELETEs in flight with uid preconditions,
//            as the sweep's ServiceAccount; its rate over its writes alone, its CPU over them
//            (process.cpuUsage() in it): the floor a removal costs a client.
//   sweep    one tick ('{}') of `sweep`.
//   event    one ApiServerSource update event per Failed pod to `podTerminated`, `inFlight` at
//            a time, the sender anonymous or authenticated (named by sender authentication).
//   floor    the same events to floor-receiver.mjs: parse, DELETE at uid and resourceVersion,
//            answer; no checks, no log, no metrics: the least an event receiver in Node costs.
// Every event row also gives the sender's own CPU per removal: it shares the two cores.
// For kube-tidy's rows: removals per second from the first request sent to the last answer,
// the process's CPU (utime + stime, /proc) over the same span per removal, its start apart.
// For every row: the API server's requests over the row (apiserver_request_total deltas) per
// removal, and the Events written.
import { loadavg } from 'node:os';
import type { Cluster } from '../../harness/index.js';
import type { FunctionIdentities } from '../../harness/function-identity.js';
import { countBy } from '../event-path.js';
import { plainClient } from '../scale/ceiling.js';
import { countPhase } from '../scale/populate.js';
import { cpuSplit } from '../scale/snapshot.js';
import { floorReceiver } from './floor.js';
import { senderKind, sendStorm, stormMessages } from './sender.js';
import { profileOf, serve, type Served, type ServeMode } from './serve.js';
import { apiRequests, listFailed, requestsBetween } from './storm.js';

const round2 = (x: number) => Math.round(x * 100) / 100;

export interface RowContext {
  cluster: Cluster;
  ids: FunctionIdentities;
  policyFile: string;
  mode: ServeMode;
  inFlight: number;
}

export interface Row {
  removed: number;
  seconds: number;
  removalsPerSecond: number;
  cpuMsPerRemoval: number;
  requestsPerRemoval: number;
  eventsWritten: number;
  requestsByKind: Record<string, number>;
  /** Failed pods the row left (0: the storm is cleared). */
  failedLeft: number;
  loadAverage1m: number;
  [more: string]: unknown;
}

/** The figures every row has, from its removals, time, CPU and the API server's counts before and after. */
async function figures(ctx: RowContext, removed: number, seconds: number, cpuS: number, before: Map<string, number>): Promise<Row> {
  const requests = requestsBetween(before, await apiRequests(ctx.cluster));
  return {
    removed,
    seconds: round2(seconds),
    removalsPerSecond: Math.round(removed / seconds),
    cpuMsPerRemoval: round2((cpuS * 1000) / Math.max(1, removed)),
    requestsPerRemoval: round2(requests.total / Math.max(1, removed)),
    eventsWritten: requests.eventsWritten,
    requestsByKind: requests.byKind,
    failedLeft: await countPhase(ctx.cluster.kubeConfig(), 'Failed'),
    loadAverage1m: round2(loadavg()[0]!),
  };
}

/**
 * `work` against a served function: the API server's request counts read first, then the time
 * (wall clock) and the process's CPU over `work` alone; the process stopped after, whatever happened.
 */
async function measured<T>(
  ctx: RowContext,
  fn: Served,
  work: () => Promise<T>,
): Promise<{ result: T; seconds: number; cpu: number; systemCpu: number; before: Map<string, number> }> {
  try {
    const before = await apiRequests(ctx.cluster);
    const cpu0 = cpuSplit(fn.pid);
    const t0 = performance.now();
    const result = await work();
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = cpuSplit(fn.pid);
    const systemCpu = cpu1.system - cpu0.system;
    return { result, seconds, cpu: cpu1.user - cpu0.user + systemCpu, systemCpu, before };
  } finally {
    await fn.stop();
  }
}

export async function ceilingRow(ctx: RowContext): Promise<Row> {
  const before = await apiRequests(ctx.cluster);
  const run = await plainClient(ctx.ids.kubeconfig('sweep'));
  const failed = Object.values(run.failed).reduce((a, b) => a + b, 0);
  if (failed) throw new Error(`the ceiling's DELETEs failed: ${JSON.stringify(run.failed)}`);
  return {
    runs: 'scale/plain-client.mjs: node:https, 32 DELETEs in flight, uid preconditions, the sweep ServiceAccount',
    ...(await figures(ctx, run.deleted, run.writeSeconds, run.cpuMs.delete / 1000, before)),
    systemCpuMsPerRemoval: round2(run.cpuMs.deleteSystem / Math.max(1, run.deleted)),
    listSeconds: round2(run.listSeconds),
    cpuMsPerRemovalWithList: round2((run.cpuMs.delete + run.cpuMs.list) / Math.max(1, run.deleted)),
  };
}

export async function sweepRow(ctx: RowContext): Promise<Row> {
  const fn = await serve(ctx.mode, 'sweep', { POLICY_FILE: ctx.policyFile, KUBECONFIG: ctx.ids.kubeconfig('sweep'), SWEEP_TIME_BUDGET_SECONDS: '50' });
  const oneTick = async () => {
    const res = await fetch(fn.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal: AbortSignal.timeout(180_000) });
    return { status: res.status, summary: ((await res.json()) as { summary?: Record<string, unknown> }).summary ?? {} };
  };
  const { result: tick, seconds, cpu, before } = await measured(ctx, fn, oneTick);
  const outcomes = (tick.summary.outcomes ?? {}) as Record<string, number>;
  const removed = outcomes.deleted ?? 0;
  const profile = profileOf(fn, ctx.mode, removed);
  return {
    runs: 'sweep, one tick',
    ...(await figures(ctx, removed, seconds, cpu, before)),
    status: tick.status,
    outcomes,
    listMs: tick.summary.listMs,
    eventsSummarised: tick.summary.eventsSummarised,
    ...(profile ? { cpuProfile: profile } : {}),
  };
}

/** How the authenticated row's sender is named: its token, and the environment that checks it. */
export interface SenderIdentity {
  authorization: string;
  env: Record<string, string>;
  subject: string;
}

export async function eventRow(ctx: RowContext, sender?: SenderIdentity): Promise<Row> {
  const serving = () =>
    serve(ctx.mode, 'podTerminated', { POLICY_FILE: ctx.policyFile, KUBECONFIG: ctx.ids.kubeconfig('podTerminated'), ...(sender?.env ?? {}) });
  const { removed, fn, row } = await stormTo(ctx, serving, sender?.authorization);
  const profile = profileOf(fn, ctx.mode, removed);
  return {
    runs: `podTerminated, one event per pod, ${ctx.inFlight} in flight, sender ${sender ? `authenticated as ${sender.subject}` : 'anonymous (SENDER_AUTH=none)'}`,
    ...row,
    ...(sender ? { senderEnv: sender.env } : {}),
    ...(profile ? { cpuProfile: profile } : {}),
  };
}

/** The storm's events to the floor receiver (floor-receiver.mjs), as its own process with podTerminated's ServiceAccount. */
export async function floorRow(ctx: RowContext): Promise<Row> {
  const { row } = await stormTo(ctx, () => floorReceiver(ctx.ids.kubeconfig('podTerminated')));
  return { runs: `floor-receiver.mjs: node:http in, node:https out, no checks, log or metrics; ${ctx.inFlight} in flight`, ...row };
}

/** One update event per stored Failed pod, sent to the process `start` serves, measured: what every event row says. */
async function stormTo(ctx: RowContext, start: () => Promise<Served>, authorization?: string) {
  const pods = await listFailed(ctx.cluster.kubeConfig());
  const messages = stormMessages(pods, ctx.cluster.server, authorization);
  const fn = await start();
  const { result, seconds, cpu, systemCpu, before } = await measured(ctx, fn, () => sendStorm(fn.url, messages, ctx.inFlight));
  const removed = result.outcomes.filter((o) => o === 'deleted').length;
  const row = {
    ...(await figures(ctx, removed, seconds, cpu, before)),
    // The part of the CPU above that is the kernel's (system calls: sockets, the log's writes).
    systemCpuMsPerRemoval: round2((systemCpu * 1000) / Math.max(1, removed)),
    // The sender's share of the two cores: how it sent, and its CPU per removal.
    sender: senderKind(),
    senderCpuMsPerRemoval: round2(result.cpuMs / Math.max(1, removed)),
    events: pods.length,
    answers: countBy(result.outcomes, (o) => o),
  };
  return { removed, fn, row };
}
