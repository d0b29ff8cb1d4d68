// The event path of pod cleanup: decide for one pod, and remove it only as it is stored.
import { getPod } from '../../kube/get.js';
import { removalTarget } from '../../kube/evict-only.js';
import { tallied } from '../../kube/request-tally.js';
import { keyOf, type Stored } from '../../model/identity.js';
import type { Pod } from '../../model/objects.js';
import { decide } from '../../selection/decide.js';
import type { Decision, Kept } from '../../selection/decision.js';
import { snapshotNeeds } from '../../selection/needs.js';
import { RetentionIndex, ruleCovers, ruleFor } from '../../selection/retention.js';
import type { Snapshot } from '../../selection/snapshot.js';
import type { CleanupHandle } from '../handle.js';
import { subjectOf, type Subject } from '../../brakes/core/meters.js';
import { removalCharged, type Admission, type AdmissionDeferral, type AdmissionTicket } from '../../kube/admission.js';
import { failuresOf, type ActResult } from './act.js';
import { actAdmitted } from './stages/act.js';
import type { EventBudget } from './event-budget.js';
import type { OwnerGroup } from './context.js';
import type { OnePodResult } from './results.js';
import type { Notifier } from '../../notify/notifier.js';
import { podDecided, type PassEvents } from '../../notify/pods.js';
import type { DueAct } from '../../notify/types.js';

/**
 * An event removes at most this many older pods of the pod's owner (kubeTidy.retention's window
 * moved past them): the requests of one event stay bounded; the rest go on the next event or sweep.
 */
export const OLDER_PER_EVENT = 20;

export interface OneDecision {
  decision?: Decision;
  kept: Kept[];
  why: string;
  /** When time alone will bring the pod in (RFC 3339), if that is all that stands in the way. */
  eligibleAt?: string;
  /**
   * kubeTidy.retention, when it had to rank the pod: the other pods of its owner that a run
   * with a rule selects and retention no longer keeps (this pod's arrival pushed them out; no
   * event comes for them), decided as listed, in the policy's order, at most OLDER_PER_EVENT.
   * Worth removeSelected even when the pod itself is kept.
   */
  older?: Decision[];
  /** The owner's pods as listed (context.ts `fetchOwnerGroup`): what `older` is tied to. */
  group?: OwnerGroup['pods'];
}

/**
 * The policy's decision for `pod` alone. The cluster (and the client, loaded on first need)
 * only when the policy reads more than the pod: most events need no request at all.
 * `requests`: those this decision sent to the API server (its context's reads; 0 when given one).
 */
export function decideOne(
  h: CleanupHandle,
  pod: Pod,
  context?: Omit<Snapshot, 'pods'>,
): Promise<OneDecision & { context: Omit<Snapshot, 'pods'>; requests: number }> {
  return tallied(async (tally) => ({ ...(await decideOn(h, pod, context)), requests: tally.sent }));
}

async function decideOn(h: CleanupHandle, pod: Pod, context?: Omit<Snapshot, 'pods'>): Promise<OneDecision & { context: Omit<Snapshot, 'pods'> }> {
  const policy = h.policy();
  if (!context) {
    const needs = snapshotNeeds(policy);
    context = {};
    if (Object.values(needs).some(Boolean)) {
      await h.ready();
      context = (await (await import('./context.js')).fetchContext(h, needs)).snapshot;
    }
  }
  const now = h.now();
  const options = { protectedNamespaces: h.settings.protectedNamespaces, eligibleAt: true };
  // With retention rules, first without them: the owner's other pods are read only when a run
  // with a rule for the pod's phase selects it (most events select nothing, and cost nothing).
  let plan = decide(policy, { ...context, pods: [pod] }, now, { ...options, ...(policy.retention?.length ? { retention: 'defer' as const } : {}) });
  let group: OneDecision['group'];
  let older: Decision[] | undefined;
  if (plan.decisions.some((d) => d.uid === pod.metadata.uid && ruleCovers(ruleFor(policy.retention, d.profile, d.strategy), pod))) {
    await h.ready();
    const read = await (await import('./context.js')).fetchOwnerGroup(h, pod);
    const index = new RetentionIndex(read.jobs);
    for (const p of read.pods) index.see(p);
    group = read.pods;
    plan = decide(policy, { ...context, pods: [pod] }, now, { ...options, retention: index });
    // The same ranking decides the others: the pods of one group agree on who is newest.
    const others = read.pods.filter((p) => p.metadata.uid !== pod.metadata.uid && !p.metadata.deletionTimestamp);
    const byUid = new Map(others.map((p) => [p.metadata.uid, p]));
    older = decide(policy, { ...context, pods: others }, now, { protectedNamespaces: h.settings.protectedNamespaces, retention: index })
      .decisions.filter((d) => ruleCovers(ruleFor(policy.retention, d.profile, d.strategy), byUid.get(d.uid)!))
      .slice(0, OLDER_PER_EVENT);
  }
  const decision = plan.decisions.find((d) => d.uid === pod.metadata.uid);
  const kept = plan.kept.filter((k) => k.uid === pod.metadata.uid);
  const eligible = decision ? undefined : plan.eligible?.find((e) => e.uid === pod.metadata.uid);
  const at = eligible?.at;
  // Nothing selects it now, but time will: saying only "no strategy selects it" hid the schedule.
  const unselected = eligible
    ? `no strategy selects it yet: time alone brings it in, ${eligible.profile}/${eligible.strategy} at ${new Date(eligible.at).toISOString()}`
    : 'no strategy selects it';
  const why = decision?.reason ?? (kept.length ? kept.map((k) => `${k.strategy}: ${k.reason}`).join('; ') : unselected);
  return {
    ...(decision ? { decision } : {}),
    kept,
    why,
    ...(at === undefined ? {} : { eligibleAt: new Date(at).toISOString() }),
    ...(group ? { group } : {}),
    ...(older?.length ? { older } : {}),
    context,
  };
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
 * Reads the pod, decides on what is stored, and removes it if the stored pod is selected:
 * DELETE when stored Succeeded/Failed, eviction otherwise, tied to the stored uid and
 * resourceVersion. `ref.uid`, when the event named one, must be the stored pod's.
 */
export async function removeSelected(
  h: CleanupHandle,
  ref: { namespace: string; name: string; uid?: string; resourceVersion?: string },
  context?: Omit<Snapshot, 'pods'>,
  shard: RemovalScope = {},
): Promise<OnePodResult> {
  const { events, pass, ahead } = shard;
  const told = tellerOf(h.notifier, shard);
  const pod = keyOf(ref);
  await h.ready();
  const stored = await getPod(h.reader.podReads, ref);
  // An event about a pod (its uid named) that is gone: done already. A bare reference: nothing to do.
  if (!stored) return { outcome: ref.uid ? 'gone' : 'nothing-to-do', pod, why: 'the pod no longer exists' };
  if (ref.uid && stored.metadata.uid !== ref.uid)
    return { outcome: 'stale', pod, why: `the event was about uid ${ref.uid}; the pod of that name now is ${stored.metadata.uid}` };
  if (stored.metadata.deletionTimestamp) return { outcome: 'nothing-to-do', pod, why: 'the pod is already terminating' };
  const again = await decideOne(h, stored, context);
  // This pod joining its owner's newest may push older ones out of what retention keeps: no
  // event comes for them, so this one removes them (as listed, tied to their uid and resourceVersion).
  const older = () => (again.older && again.group ? removeOlder(h, again.older, again.group, told, events, pass) : Promise.resolve(undefined));
  if (!again.decision) {
    // The event described a state the pod is no longer in (or never was): say so.
    const changed = ref.resourceVersion !== undefined && ref.resourceVersion !== stored.metadata.resourceVersion;
    const outcome = changed ? 'stale' : again.kept.length ? 'kept' : 'nothing-to-do';
    const why = changed
      ? `the pod changed since the event (resourceVersion ${ref.resourceVersion}, stored ${stored.metadata.resourceVersion}); as stored: ${again.why}`
      : `as stored: ${again.why}`;
    // Kept only until a time (eligibleAt, as stored, even when the event was stale) with the
    // stored uid: what the event path schedules from, in either mode.
    const waiting = again.eligibleAt ? { eligibleAt: again.eligibleAt, uid: stored.metadata.uid } : {};
    return withOlder({ outcome, pod, why, kept: again.kept, ...waiting }, await older());
  }
  // The admission port (the brakes): a unit of every budget, or the pod waits (2xx: nothing is
  // wrong, and a retry would only be deferred again; the port told it); a later event or pass takes it.
  const admission = h.admission({ brakes: h.brakes(), path: 'event' });
  const { result, deferred } = await admitThenAct(h, admission, stored, again.decision, { ahead, pass, events });
  told(again.decision, result);
  if (deferred) return { outcome: 'deferred', pod, why: deferred.why, deferred };
  const why = result.message ? `${again.decision.reason} (${result.message})` : again.decision.reason;
  return withOlder({ outcome: result.outcome, pod, why, result, failures: failuresOf([result]) }, await older());
}

/** Removes `due` (decisions on the owner's other pods as listed in `group`), in order, each through the admission port; a deferral stops the rest (a later event or pass takes them). */
async function removeOlder(
  h: CleanupHandle,
  due: readonly Decision[],
  group: readonly Stored<Pod>[],
  told: Teller,
  events?: EventBudget,
  pass?: string,
): Promise<ActResult[]> {
  // One policy for the whole group, as it was when the group was decided.
  const policy = h.policy();
  const byUid = new Map(group.map((p) => [p.metadata.uid, p]));
  const results: ActResult[] = [];
  const admission = h.admission({ brakes: h.brakes(), path: 'event', policy: () => policy });
  for (const d of due) {
    const { result, deferred } = await admitThenAct(h, admission, byUid.get(d.uid)!, d, { pass, events });
    told(d, result);
    results.push(result);
    if (deferred) break;
  }
  return results;
}

/**
 * One stored pod through the same admit and act stages as a pass's (stages/act.ts): a unit of
 * every budget from the admission port, or it waits (its result `deferred`, nothing sent); let
 * through, written as listed and settled with the API server's answer. A ledger that fails throws.
 */
async function admitThenAct(
  h: CleanupHandle,
  admission: Admission,
  pod: Stored<Pod>,
  decision: Decision,
  o: Pick<RemovalScope, 'ahead' | 'pass' | 'events'>,
): Promise<{ result: ActResult; deferred?: AdmissionDeferral }> {
  const taken = await admission.admit(subjectOf(pod), { ahead: o.ahead, pass: o.pass });
  const settle = (ticket: AdmissionTicket, result: ActResult | undefined) => admission.settle(ticket, removalCharged(result));
  const result = await actAdmitted(h.writer(), h.metrics, settle, decision, removalTarget(pod), taken, o.events);
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
