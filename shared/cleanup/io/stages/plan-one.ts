// The decide and order stages over one pod (one-pod.ts): a pass's own (decide.ts, order.ts),
// given a page of that one pod; under kubeTidy.retention, when a rule covers what selects it,
// the page is the pod with its owner's other finished pods (context.ts `fetchOwnerGroup`), the
// group retention ranks. The gate, strategies, retention and limits are then the sweep's, by
// construction: what a rule or a limit added to the pass does, it does to one pod.
import type { Stored } from '../../../model/identity.js';
import type { Pod } from '../../../model/objects.js';
import type { Policy } from '../../../policy/policy.js';
import { decide } from '../../../selection/decide.js';
import type { Decision, Kept } from '../../../selection/decision.js';
import { ruleCovers, ruleFor, type JobOwners } from '../../../selection/retention.js';
import type { Snapshot } from '../../../selection/snapshot.js';
import type { CleanupHandle } from '../../handle.js';
import { DecideStage } from './decide.js';
import { OrderStage } from './order.js';

/**
 * An event removes at most this many older pods of the pod's owner (kubeTidy.retention's window
 * moved past them): the requests of one event stay bounded; the rest go on the next event or sweep.
 */
export const OLDER_PER_EVENT = 20;

export interface OnePlan {
  decision?: Decision;
  kept: Kept[];
  why: string;
  /** When time alone will bring the pod in (RFC 3339), if that is all that stands in the way. */
  eligibleAt?: string;
  /**
   * kubeTidy.retention, when it had to rank the pod: the other pods of its owner that a run
   * with a rule selects and retention no longer keeps (this pod's arrival pushed them out; no
   * event comes for them), in the policy's order, at most OLDER_PER_EVENT.
   */
  older: Decision[];
  /** The pods decided on, by uid, as read (the pod; its owner's as listed): what each write is tied to. */
  read: ReadonlyMap<string, Stored<Pod>>;
}

/** `withOlder`: read the owner's group when retention ranks the pod (the event path); off when a pass already decided that group. */
export async function planOne(h: CleanupHandle, policy: Policy, pod: Stored<Pod>, context: Omit<Snapshot, 'pods'>, withOlder: boolean): Promise<OnePlan> {
  const uid = pod.metadata.uid!;
  const protectedNamespaces = h.settings.protectedNamespaces;
  const group = withOlder && rankedByRetention(policy, pod, context, h.now(), protectedNamespaces) ? await ownerGroup(h, pod) : undefined;
  const others = new Map((group?.pods ?? []).map((p) => [p.metadata.uid!, p]));
  // The pod itself, and those of its owner's others whose selection a retention rule decides.
  const only = (d: Decision) => d.uid === uid || ruleCovers(ruleFor(policy.retention, d.profile, d.strategy), others.get(d.uid)!);
  const now = () => h.now();
  const order = new OrderStage(policy, group?.jobs, now);
  const decider = new DecideStage(policy, { snapshot: context }, order, { protectedNamespaces, early: false, eligibleAt: true, only }, now);
  const page = decider.page([pod, ...others.values()]);
  const ordered = order.finish();
  const decision = ordered.decisions.find((d) => d.uid === uid);
  const kept = [...page.kept, ...ordered.kept].filter((k) => k.uid === uid);
  const eligible = decision ? undefined : page.plan.eligible?.find((e) => e.uid === uid);
  // Nothing selects it now, but time will: saying only "no strategy selects it" hid the schedule.
  const unselected = eligible
    ? `no strategy selects it yet: time alone brings it in, ${eligible.profile}/${eligible.strategy} at ${new Date(eligible.at).toISOString()}`
    : 'no strategy selects it';
  const why = decision?.reason ?? (kept.length ? kept.map((k) => `${k.strategy}: ${k.reason}`).join('; ') : unselected);
  return {
    ...(decision ? { decision } : {}),
    kept,
    why,
    ...(eligible ? { eligibleAt: new Date(eligible.at).toISOString() } : {}),
    older: ordered.decisions.filter((d) => d.uid !== uid).slice(0, OLDER_PER_EVENT),
    read: new Map([[uid, pod], ...others]),
  };
}

/**
 * Whether a run with a retention rule for the pod's phase selects it: only then are its owner's
 * other pods read (most events select nothing, and cost nothing). The core alone, no request.
 */
function rankedByRetention(policy: Policy, pod: Pod, context: Omit<Snapshot, 'pods'>, now: number, protectedNamespaces: readonly string[]): boolean {
  if (!policy.retention?.length) return false;
  const plan = decide(policy, { ...context, pods: [pod] }, now, { protectedNamespaces, retention: 'defer' });
  return plan.decisions.some((d) => d.uid === pod.metadata.uid && ruleCovers(ruleFor(policy.retention, d.profile, d.strategy), pod));
}

/** The owner's other finished pods as listed (not being deleted), and whose Job is whose. */
async function ownerGroup(h: CleanupHandle, pod: Stored<Pod>): Promise<{ pods: Stored<Pod>[]; jobs: JobOwners }> {
  await h.ready();
  const read = await (await import('../context.js')).fetchOwnerGroup(h, pod);
  return { pods: read.pods.filter((p) => p.metadata.uid !== pod.metadata.uid && !p.metadata.deletionTimestamp), jobs: read.jobs };
}
