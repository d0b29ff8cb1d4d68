// Fan-out: a sweep that selected more pods than one instance acts on in its time budget keeps
// the first slice (in the policy's order) and posts the rest as shards, CloudEvents of type
// dev.kube-tidy.sweep.shard.v1, to the broker that feeds `sweep` (docs/scale.md), or on GCP
// to a Pub/Sub topic an Eventarc trigger delivers back to `sweep`. Any
// instance takes a shard: it reads each pod, decides again on the stored pod and removes it
// only if the policy still selects it, so a shard is idempotent (a pod already removed is
// `gone`), safe to repeat, and worth nothing to a forger. The policy's order and limits were
// applied once, by the planner, over the whole cluster: shards only carry that result, and
// the planner stores each shard's digest before posting it (shard-plan.ts), so only the
// shards it planned are taken.
import type { CloudEvent } from 'cloudevents';
import { httpMessage, pubSubMessage, shardEvent, type SweepShard } from '../../cloudevents/index.js';
import type { MetadataTokens } from '../../gcp/metadata-token.js';
import { publish, type PubSubTarget } from '../../gcp/pubsub-publish.js';
import type { Decision } from '../../selection/decision.js';
import { snapshotNeeds } from '../../selection/needs.js';
import type { CleanupHandle } from '../handle.js';
import type { ShardResult } from './results.js';
import { fetchContext } from './context.js';
import { EventBudget } from './event-budget.js';
import { inOrder } from '../../pool/in-order.js';
import { tallied, type RequestTally } from '../../kube/request-tally.js';
import type { ClusterWriter } from '../../kube/writer.js';
import { storePlan } from './shard-plan.js';
import { removeSelected } from './one-pod.js';
import { passEvents } from '../../notify/pods.js';

/** The broker (or any CloudEvents endpoint delivering to sweep), or a Pub/Sub topic. */
export type ShardSink = { url: string } | PubSubTarget;

export interface FanOut {
  sink: ShardSink;
  /** Pods per shard. */
  size: number;
  /** Where the planner stores the pass's shard digests (SWEEP_PLAN_NAMESPACE). */
  planNamespace: string;
  /** A Pub/Sub sink's token cache, kept by the target's parts (one per process). */
  tokens?: MetadataTokens;
}

export interface Posted {
  /** Shards handed out (the planner's own slice is shard 0 and is not posted). */
  shards: number;
  pods: number;
  /** Pods in shards the sink did not take: left for the next sweep (a transient failure). */
  notPosted: number;
  /** Why the first shard not taken was not (e.g. a missing publisher role on the topic). */
  error?: string;
}

const POST_TIMEOUT_MS = 10_000;
/** Pods of a shard reserved in one ledger write (brakes/io/brakes.ts). */
const AHEAD = 256;

/**
 * Posts decisions (those after the planner's own slice) in shards 1..n of `pass`, once their
 * digests are stored (not in a dry run: nothing is stored, and no shard can write).
 */
export async function postShards(
  fanOut: FanOut,
  pass: string,
  rest: readonly Decision[],
  source: string,
  h: CleanupHandle,
  writer: ClusterWriter,
): Promise<Posted> {
  const shards: SweepShard[] = [];
  for (let i = 0; i < rest.length; i += fanOut.size)
    shards.push({
      pass,
      index: shards.length + 1,
      of: 0,
      pods: rest.slice(i, i + fanOut.size).map((d) => ({ namespace: d.namespace, name: d.name, uid: d.uid })),
    });
  for (const s of shards) s.of = shards.length + 1;
  const out: Posted = { shards: 0, pods: 0, notPosted: 0 };
  if (!writer.dryRun) {
    try {
      await storePlan(h.reader.core, writer, fanOut.planNamespace, pass, shards, h.now());
    } catch (e) {
      // No record, no shard: an unplanned shard would only be refused.
      return { ...out, notPosted: rest.length, error: `storing the plan: ${(e as Error).message}` };
    }
  }
  await inOrder(
    shards,
    8,
    () => false,
    async (shard) => {
      const refused = await deliver(fanOut, shardEvent(shard, source));
      if (refused === undefined) {
        out.shards++;
        out.pods += shard.pods.length;
        return;
      }
      out.notPosted += shard.pods.length;
      out.error ??= refused;
    },
  );
  return out;
}

/** Undefined when the sink took the shard; otherwise why not (unreachable, timed out, refused). */
async function deliver({ sink, tokens }: Pick<FanOut, 'sink' | 'tokens'>, event: CloudEvent<SweepShard>): Promise<string | undefined> {
  try {
    if ('topic' in sink) {
      await publish(sink, [pubSubMessage(event)], tokens);
      return undefined;
    }
    const m = httpMessage(event);
    const res = await fetch(sink.url, { method: 'POST', headers: m.headers, body: m.body, signal: AbortSignal.timeout(POST_TIMEOUT_MS) });
    const text = await res.text();
    return res.ok ? undefined : `${sink.url}: HTTP ${res.status} ${text.slice(0, 200)}`;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * Takes one shard: every pod read, decided again as stored, removed only if still selected.
 * Its `requests`: those sent to the API server on its behalf (as a pass's, PassSummary), not
 * the process's, which other shards and events taken at the same time share.
 */
export function actShard(h: CleanupHandle, shard: SweepShard): Promise<ShardResult> {
  return tallied((tally) => takeShard(h, shard, tally));
}

async function takeShard(h: CleanupHandle, shard: SweepShard, tally: RequestTally): Promise<ShardResult> {
  const { budgetMs, eventsPerPass, concurrency, recordEvents, dryRun } = h.settings;
  const started = h.now();
  const deadline = started + budgetMs;
  const needs = snapshotNeeds(h.policy());
  const context = Object.values(needs).some(Boolean) ? (await fetchContext(h, needs)).snapshot : {};
  const events = recordEvents && !dryRun ? new EventBudget(eventsPerPass) : undefined;
  // Its decisions out as CloudEvents as a pass sends them: the first few one each, the rest in batches, then its summary.
  const out = passEvents(h.notifier, 'shard', shard.pass, eventsPerPass);
  const { results, started: acted } = await inOrder(
    shard.pods,
    concurrency,
    () => h.now() > deadline,
    (pod, i) =>
      // The shard's next pods are reserved with this one: one ledger write per AHEAD removals, as a pass.
      removeSelected(h, pod, context, {
        ...(events ? { events } : {}),
        pass: shard.pass,
        ahead: () => shard.pods.slice(i + 1, i + 1 + AHEAD).map((p) => ({ namespace: p.namespace })),
        ...(out ? { out } : {}),
      }),
  );
  const outcomes: Record<string, number> = {};
  const failures = { transient: shard.pods.length - acted, refused: 0 };
  for (const r of results) {
    if (!r) continue;
    outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
    failures.transient += r.failures?.transient ?? 0;
    failures.refused += r.failures?.refused ?? 0;
  }
  await events?.flush(h.writer(), `${shard.pass}-${shard.index}`);
  const complete = failures.transient + failures.refused === 0;
  out?.completed({
    dryRun,
    outcome: complete ? 'complete' : 'incomplete',
    durationMs: h.now() - started,
    failures,
    counts: { shard: shard.index, of: shard.of, pods: shard.pods.length, started: acted, outcomes, requests: tally.sent },
  });
  return {
    outcome: complete ? 'shard-done' : 'shard-incomplete',
    shard: { pass: shard.pass, index: shard.index, of: shard.of, pods: shard.pods.length, started: acted },
    outcomes,
    failures,
    durationMs: h.now() - started,
    requests: tally.sent,
  };
}
