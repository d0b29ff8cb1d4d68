// The one-pod path of pod cleanup (an event, a shard's pod, a due act, a pass's pod that changed
// under its write): a pass's own stages over one pod. read (stages/read-one.ts: the stored pod,
// or an event's whole copy from a source the process trusts: the event is the read) -> decide
// and order (stages/plan-one.ts: decide.ts and order.ts over that pod, with its owner's group
// under kubeTidy.retention) -> admit (the admission port, or a pass's brakes) -> act
// (stages/act.ts `actAdmitted`, tied to the uid and resourceVersion decided on). A write answered
// 409 (the pod changed since it was read) sends the pod back to the read once; then it is stale.
import { KubeRequestError, TransientKubeError } from '../../kube/errors.js';
import { removalTarget } from '../../kube/evict-only.js';
import { tallied } from '../../kube/request-tally.js';
import type { ClusterWriter } from '../../kube/writer.js';
import { keyOf, type Stored } from '../../model/identity.js';
import type { Pod } from '../../model/objects.js';
import type { Policy } from '../../policy/policy.js';
import type { Decision } from '../../selection/decision.js';
import type { Snapshot } from '../../selection/snapshot.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import type { CleanupHandle } from '../handle.js';
import { subjectOf, type Subject } from '../../brakes/core/meters.js';
import type { AdmissionDeferral } from '../../kube/admission.js';
import { failuresOf, resultOf, type ActResult } from './act.js';
import { actAdmitted, type AdmitAnswer } from './stages/act.js';
import { planOne, type OnePlan } from './stages/plan-one.js';
import { contextOf, readOne, type OneSource, type PodRef } from './stages/read-one.js';
import type { EventBudget } from './event-budget.js';
import type { OnePodResult } from './results.js';
import type { Notifier } from '../../notify/notifier.js';
import { podDecided, type PassEvents } from '../../notify/pods.js';
import type { DueAct } from '../../notify/types.js';

export { OLDER_PER_EVENT } from './stages/plan-one.js';
export type { OneSource, PodRef, Watched } from './stages/read-one.js';

/** The plan for one pod (stages/plan-one.ts) as a first look answers it: `older` only when there are some, the pods read left out. */
export type OneDecision = Omit<OnePlan, 'older' | 'read'> & {
  /** kubeTidy.retention: the owner's older pods this pod's arrival pushed out. Worth removeSelected even when the pod itself is kept. */
  older?: Decision[];
};

/**
 * The policy's decision for `pod` alone, through the decide and order stages, nothing written:
 * podTerminated's first look at an event's copy it does not take as the read, evacuation's
 * strategy request. The cluster only when the policy reads more than the pod. `requests`:
 * those this decision sent to the API server (its context's reads; 0 when given one).
 */
export function decideOne(
  h: CleanupHandle,
  pod: Pod,
  context?: Omit<Snapshot, 'pods'>,
): Promise<OneDecision & { context: Omit<Snapshot, 'pods'>; requests: number }> {
  return tallied(async (tally) => {
    const policy = h.policy();
    const ctx = context ?? (await contextOf(h, policy));
    const { older, read: _read, ...one } = await planOne(h, policy, pod as Stored<Pod>, ctx, true);
    return { ...one, ...(older.length ? { older } : {}), context: ctx, requests: tally.sent };
  });
}

/**
 * What a removal is part of besides its pod: a pass's shard (shards.ts: every field but `due`),
 * or a due timer or tick acting at the pod's eligibility (shared/cleanup/due: `due` only). None of it on
 * an event's own removal.
 */
export interface RemovalScope {
  /** The pass's Kubernetes Event budget. */
  events?: EventBudget;
  /** The pass a shard belongs to, whose own abort's trip does not stop the pods it kept before the line. */
  pass?: string;
  /** The pods a shard removes next (their namespaces: all a shard knows before reading them), reserved in the same ledger write. */
  ahead?: () => readonly Subject[];
  /** The shard's CloudEvents, batched as a pass's (notify/pods.ts); absent: one event per decision. */
  out?: PassEvents;
  /** Acting at eligibility: its decision's CloudEvent says so (the event path's own says nothing of time). */
  due?: DueAct;
}

/**
 * How the one-pod path admits and writes: an event's (the admission port and the handle's
 * writer, `eventWay`), or a pass's, for a pod it listed that changed under its write (its
 * brakes, its writer and dry run, its Events' budget: pass.ts).
 */
export interface OneWay {
  policy: Policy;
  writer: ClusterWriter;
  /** Where each removal is counted: the handle's recorder. */
  metrics: MetricsRecorder;
  /** A unit of every budget for removing `pod` (decided `d`), or why it waits. */
  admit(pod: Stored<Pod>, d: Decision): Promise<AdmitAnswer>;
  events?: EventBudget | undefined;
}

/**
 * Decides on the pod as read and removes it if it is selected: DELETE when it was read
 * Succeeded/Failed, eviction otherwise, tied to the uid and resourceVersion it was read at.
 * `from`: a reference (the stored pod is read; its `uid`, when named, must be the stored
 * pod's), or a trusted event's copy (`{watched}`: decided on as it is, no GET). A write
 * answered 409 is read and decided again once.
 */
export async function removeSelected(h: CleanupHandle, from: OneSource, context?: Omit<Snapshot, 'pods'>, scope: RemovalScope = {}): Promise<OnePodResult> {
  const told = tellerOf(h.notifier, scope);
  // The writer and the brakes need the client loaded (a lazy process loads it on first need), even when the event is the read.
  await h.ready();
  const way = eventWay(h, scope);
  const first = await throughStages(h, from, context, way, { older: true, told });
  if (first.own?.result.outcome !== 'stale') {
    if (first.own) told(first.own.decision, first.own.result);
    return withOlder(first.answer, first.older);
  }
  // 409: the pod changed since it was read (or since the source read it): read it now, decide again, once.
  const again = await throughStages(h, first.own.seen, first.context, way, { older: false, told, again: true });
  if (again.own) told(again.own.decision, again.own.result);
  return withOlder(again.answer, first.older);
}

/**
 * A pass's pod whose write was answered 409, read and decided on again as stored (once) with the
 * pass's own parts: its result, the write's if one was sent; `stale` (the why as stored) when the
 * stored pod is no longer selected, `gone` when it is gone. Never the owner's older pods: the
 * pass decided that group. A read that fails is the pod's result (failed, or refused), as a write's.
 */
export async function decidedAgain(h: CleanupHandle, way: OneWay, decision: Decision, seen: PodRef, context?: Omit<Snapshot, 'pods'>): Promise<ActResult> {
  const base = resultOf(decision, way.writer.dryRun);
  try {
    const again = await throughStages(h, seen, context, way, { older: false, told: () => undefined, again: true });
    if (again.own) return again.own.result;
    return { ...base, outcome: again.answer.outcome === 'gone' ? 'gone' : 'stale', message: again.answer.why };
  } catch (e) {
    if (e instanceof TransientKubeError) return { ...base, outcome: 'failed', message: e.message };
    if (e instanceof KubeRequestError) return { ...base, outcome: 'refused', message: e.message };
    throw e;
  }
}

/** An event's way to admit and write: the admission port over the handle's brakes, one policy for the whole group. */
function eventWay(h: CleanupHandle, { ahead, pass, events }: RemovalScope): OneWay {
  const policy = h.policy();
  const admission = h.admission({ brakes: h.brakes(), path: 'event', policy: () => policy });
  return {
    policy,
    writer: h.writer(),
    metrics: h.metrics,
    admit: (pod) => admission.admit(subjectOf(pod), { ahead, pass }),
    events,
  };
}

interface Through {
  answer: OnePodResult;
  /** The pod's own removal, not yet told (a 409 is read again first), and the pod as it was decided on. */
  own?: { decision: Decision; result: ActResult; seen: PodRef };
  older?: ActResult[];
  context?: Omit<Snapshot, 'pods'>;
}

/** read -> decide and order -> admit -> act, for the pod and (`older`) its owner's older pods retention let go. */
async function throughStages(
  h: CleanupHandle,
  from: OneSource,
  context: Omit<Snapshot, 'pods'> | undefined,
  way: OneWay,
  o: { older: boolean; told: Teller; again?: boolean },
): Promise<Through> {
  const read = await readOne(h, from);
  if ('answer' in read) return { answer: read.answer };
  const ctx = context ?? (await contextOf(h, way.policy));
  const plan = await planOne(h, way.policy, read.pod, ctx, o.older);
  const pod = keyOf({ namespace: read.pod.metadata.namespace ?? '', name: read.pod.metadata.name ?? '' });
  // This pod joining its owner's newest may push older ones out of what retention keeps: no
  // event comes for them, so this one removes them (as listed, tied to their uid and resourceVersion).
  const older = async () => (plan.older.length ? removeOlder(way, plan, o.told) : undefined);
  if (!plan.decision) return { answer: unselected(read.pod, pod, plan, from, o.again), older: await older(), context: ctx };
  // The admission port (the brakes): a unit of every budget, or the pod waits (2xx: nothing is
  // wrong, and a retry would only be deferred again; the port told it); a later event or pass takes it.
  const { result, deferred } = await admitThenAct(way, read.pod, plan.decision);
  const m = read.pod.metadata;
  const own = { decision: plan.decision, result, seen: { namespace: m.namespace ?? '', name: m.name ?? '', uid: m.uid!, resourceVersion: m.resourceVersion! } };
  if (deferred) return { answer: { outcome: 'deferred', pod, why: deferred.why, deferred }, own, context: ctx };
  const why = result.message ? `${plan.decision.reason} (${result.message})` : plan.decision.reason;
  return { answer: { outcome: result.outcome, pod, why, result, failures: failuresOf([result]) }, own, older: await older(), context: ctx };
}

/**
 * The pod is not selected as read. Read after a reference that said its resourceVersion (an
 * event's, or the one a write was refused at), a pod changed since is `stale`: the event (or
 * the decision) described a state it is no longer in. A trusted event's copy is the read: its
 * answer is as the event path's first look always said it.
 */
function unselected(read: Stored<Pod>, pod: string, plan: OnePlan, from: OneSource, again?: boolean): OnePodResult {
  const stored = read.metadata.resourceVersion;
  const seenAt = 'watched' in from ? undefined : from.resourceVersion;
  const changed = seenAt !== undefined && seenAt !== stored;
  const outcome = changed ? 'stale' : plan.kept.length ? 'kept' : 'nothing-to-do';
  const since = again ? 'its removal was decided' : 'the event';
  const why = changed
    ? `the pod changed since ${since} (resourceVersion ${seenAt}, stored ${stored}); as stored: ${plan.why}`
    : 'watched' in from
      ? plan.why
      : `as stored: ${plan.why}`;
  // Kept only until a time (eligibleAt, as read, even when the event was stale) with the
  // pod's uid: what the event path schedules from, in either mode.
  const waiting = plan.eligibleAt ? { eligibleAt: plan.eligibleAt, uid: read.metadata.uid! } : {};
  return { outcome, pod, why, kept: plan.kept, ...waiting };
}

/** Removes the owner's older pods (as listed), in order, each admitted; a deferral stops the rest (a later event or pass takes them). */
async function removeOlder(way: OneWay, plan: OnePlan, told: Teller): Promise<ActResult[]> {
  const results: ActResult[] = [];
  for (const d of plan.older) {
    const { result, deferred } = await admitThenAct(way, plan.read.get(d.uid)!, d);
    told(d, result);
    results.push(result);
    if (deferred) break;
  }
  return results;
}

/**
 * One pod through the admit and act stages, as a pass's (stages/act.ts): a unit of every budget,
 * or it waits (its result `deferred`, nothing sent); let through, written as read with its
 * ticket, which the writer settles on the API server's answer. An event's ledger that fails throws.
 */
async function admitThenAct(way: OneWay, pod: Stored<Pod>, decision: Decision): Promise<{ result: ActResult; deferred?: AdmissionDeferral }> {
  const taken = await way.admit(pod, decision);
  const result = await actAdmitted(way.writer, way.metrics, decision, removalTarget(pod), taken, way.events);
  return { result, ...('deferred' in taken ? { deferred: taken.deferred } : {}) };
}

type Teller = (d: Decision, r: ActResult) => void;

/** Each decision out as a CloudEvent: into the shard's batches, or one event each (the event path and its due acts, a shard without them). */
const tellerOf = (n: Notifier, { out, pass, due }: RemovalScope): Teller =>
  out ? (d, r) => out.decided(d, r) : (d, r) => podDecided(n, d, r, pass ? 'shard' : 'event', pass, due);

/** The answer about the event's pod, with what it did to its owner's older pods (their failures count too). */
function withOlder(answer: OnePodResult, older: ActResult[] | undefined): OnePodResult {
  if (!older?.length) return answer;
  const f = failuresOf(older);
  const mine = answer.failures ?? { transient: 0, refused: 0 };
  return {
    ...answer,
    older: older.map((r) => ({ pod: `${r.namespace}/${r.name}`, outcome: r.outcome, why: r.message ? `${r.reason} (${r.message})` : r.reason })),
    failures: { transient: mine.transient + f.transient, refused: mine.refused + f.refused },
  };
}
