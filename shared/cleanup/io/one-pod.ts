// The event path of pod cleanup: decide for one pod, and remove it only as it is stored.
import { getPod } from '../../kube/get.js';
import { removalTarget } from '../../kube/evict-only.js';
import { tallied } from '../../kube/request-tally.js';
import { keyOf } from '../../model/identity.js';
import type { Pod } from '../../model/objects.js';
import { decide } from '../../plan/decide.js';
import type { Decision, Kept } from '../../plan/decision.js';
import { snapshotNeeds } from '../../plan/needs.js';
import type { Snapshot } from '../../plan/snapshot.js';
import type { CleanupHandle } from '../handle.js';
import type { Answer } from '../../serve/target.js';
import { brakeSetOf } from '../../brakes/io/brakes.js';
import { subjectOf, type Subject } from '../../brakes/core/meters.js';
import { act, failuresOf } from './act.js';
import { charged, tellDeferral } from './brakes.js';
import type { EventBudget } from './event-budget.js';

export interface OneDecision {
  decision?: Decision;
  kept: Kept[];
  why: string;
  /** When time alone will bring the pod in (RFC 3339), if that is all that stands in the way. */
  eligibleAt?: string;
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
  const plan = decide(policy, { ...context, pods: [pod] }, h.now(), { protectedNamespaces: h.settings.protectedNamespaces, eligibleAt: true });
  const decision = plan.decisions.find((d) => d.uid === pod.metadata.uid);
  const kept = plan.kept.filter((k) => k.uid === pod.metadata.uid);
  const why = decision?.reason ?? (kept.length ? kept.map((k) => `${k.strategy}: ${k.reason}`).join('; ') : 'no strategy selects it');
  const at = decision ? undefined : plan.eligible?.find((e) => e.uid === pod.metadata.uid)?.at;
  return { ...(decision ? { decision } : {}), kept, why, ...(at === undefined ? {} : { eligibleAt: new Date(at).toISOString() }), context };
}

/**
 * Reads the pod, decides on what is stored, and removes it if the stored pod is selected:
 * DELETE when stored Succeeded/Failed, eviction otherwise, tied to the stored uid and
 * resourceVersion. `ref.uid`, when the event named one, must be the stored pod's. `pass`: the
 * pass a shard belongs to, whose own abort's trip does not stop the pods it kept before the line.
 */
export async function removeSelected(
  h: CleanupHandle,
  ref: { namespace: string; name: string; uid?: string; resourceVersion?: string },
  context?: Omit<Snapshot, 'pods'>,
  events?: EventBudget,
  pass?: string,
  /** The pods a shard removes next (their namespaces: all a shard knows before reading them), reserved in the same ledger write. */
  ahead?: () => readonly Subject[],
): Promise<Answer> {
  const pod = keyOf(ref);
  await h.ready();
  const stored = await getPod(h.reader.core, ref);
  // An event about a pod (its uid named) that is gone: done already. A bare reference: nothing to do.
  if (!stored) return { outcome: ref.uid ? 'gone' : 'nothing-to-do', pod, why: 'the pod no longer exists' };
  if (ref.uid && stored.metadata.uid !== ref.uid)
    return { outcome: 'stale', pod, why: `the event was about uid ${ref.uid}; the pod of that name now is ${stored.metadata.uid}` };
  if (stored.metadata.deletionTimestamp) return { outcome: 'nothing-to-do', pod, why: 'the pod is already terminating' };
  const again = await decideOne(h, stored, context);
  if (!again.decision) {
    // The event described a state the pod is no longer in (or never was): say so.
    const changed = ref.resourceVersion !== undefined && ref.resourceVersion !== stored.metadata.resourceVersion;
    const outcome = changed ? 'stale' : again.kept.length ? 'kept' : 'nothing-to-do';
    const why = changed
      ? `the pod changed since the event (resourceVersion ${ref.resourceVersion}, stored ${stored.metadata.resourceVersion}); as stored: ${again.why}`
      : `as stored: ${again.why}`;
    return { outcome, pod, why, kept: again.kept };
  }
  // The brakes: a unit of every budget, or the pod waits (2xx: nothing is wrong, and a retry
  // would only be deferred again); a later event or pass takes it.
  const brakes = h.brakes();
  const taken = await brakes.take(brakeSetOf(h.policy()), subjectOf(stored), ahead, pass);
  if ('deferred' in taken) {
    await tellDeferral(h.writer(), h.log, brakes, taken.deferred, 'event');
    return { outcome: 'deferred', pod, why: taken.deferred.why, deferred: taken.deferred };
  }
  let result;
  try {
    result = await act(h.writer(), removalTarget(stored), again.decision, events);
  } finally {
    // An exception is a bug or an unclassified failure: charged, as a removal that may have happened.
    brakes.done(taken.ticket, result === undefined || charged(result));
  }
  const why = result.message ? `${again.decision.reason} (${result.message})` : again.decision.reason;
  return { outcome: result.outcome, pod, why, result, failures: failuresOf([result]) };
}
