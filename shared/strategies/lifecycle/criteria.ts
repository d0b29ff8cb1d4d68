import type { ContainerStatus, LabelSelector, Pod, PodCondition } from '../../model/objects.js';
import { secondsSince, toMillis } from '../../model/time.js';
import type { ExitCodeRange } from '../../policy/common.js';
import type { Namespaces } from '../../policy/common.js';

/**
 * The matching logic of the three lifecycle strategies, in one place. The descheduler's
 * maintainers want PodLifeTime, RemoveFailedPods and RemovePodsHavingTooManyRestarts merged
 * (#1169, #1677); upstream RemoveFailedPods already delegates to PodLifeTime. Here each
 * strategy maps its arguments onto these criteria, and one compiled matcher serves all.
 *
 * Every set criterion must hold (AND); entries inside one criterion are alternatives (OR).
 */
export interface LifecycleCriteria {
  namespaces?: Namespaces;
  labelSelector?: LabelSelector;
  /** The pod must be in one of these phases (RemoveFailedPods: Failed only). */
  phases?: readonly string[];
  ownerKinds?: { include?: readonly string[]; exclude?: readonly string[] };
  /** Older than this many seconds (strictly): PodLifeTime's `uint(age) > maxPodLifeTimeSeconds`. */
  olderThanSeconds?: number;
  /**
   * At least this many seconds old: RemoveFailedPods rejects only `uint(age) <
   * minPodLifetimeSeconds`, so a pod exactly that old is selected (and with 0, a pod that
   * failed in its first second).
   */
  minAgeSeconds?: number;
  /** Phase, pod status reason, or a container's waiting/terminated reason. */
  states?: readonly string[];
  /**
   * Whether `states` also match the pod's phase (PodLifeTime's states do). RemoveFailedPods'
   * `reasons` do not: upstream compares them with container and pod reasons only, so
   * `reasons: [Failed]` does not select every Failed pod.
   */
  statesMatchPhase?: boolean;
  conditions?: readonly ConditionFilter[];
  exitCodes?: readonly ExitCodeRange[];
  /** At least this many container restarts. */
  minRestarts?: number;
  includingInitContainers: boolean;
  includingEphemeralContainers: boolean;
}

export interface ConditionFilter {
  type?: string;
  status?: string;
  reason?: string;
  minTimeSinceLastTransitionSeconds?: number;
}

export function containerGroups(pod: Pod, c: LifecycleCriteria, withEphemeral: boolean): ContainerStatus[][] {
  const s = pod.status;
  const groups: ContainerStatus[][] = [s?.containerStatuses ?? []];
  if (c.includingInitContainers) groups.push(s?.initContainerStatuses ?? []);
  if (withEphemeral && c.includingEphemeralContainers) groups.push(s?.ephemeralContainerStatuses ?? []);
  return groups;
}

export function conditionFieldsMatch(cond: PodCondition, f: ConditionFilter): boolean {
  return (
    (f.type === undefined || cond.type === f.type) &&
    (f.status === undefined || cond.status === f.status) &&
    (f.reason === undefined || cond.reason === f.reason)
  );
}

/** The pod condition satisfying a filter, if any (OR across filters). */
export function matchingCondition(pod: Pod, filters: readonly ConditionFilter[], now: number): PodCondition | undefined {
  for (const f of filters) {
    for (const cond of pod.status?.conditions ?? []) {
      if (!conditionFieldsMatch(cond, f)) continue;
      if (f.minTimeSinceLastTransitionSeconds !== undefined) {
        const since = secondsSince(cond.lastTransitionTime, now);
        // No transition time: it cannot be shown to be old enough.
        if (Number.isNaN(since) || since < f.minTimeSinceLastTransitionSeconds) continue;
      }
      return cond;
    }
  }
  return undefined;
}

/**
 * The time pods are ordered by, oldest first: the latest transition of a condition that a
 * filter with minTimeSinceLastTransitionSeconds matches, else creation (as upstream).
 */
export function relevantTime(pod: Pod, filters: readonly ConditionFilter[] | undefined): number {
  let latest = Number.NaN;
  for (const f of filters ?? []) {
    if (f.minTimeSinceLastTransitionSeconds === undefined) continue;
    for (const cond of pod.status?.conditions ?? []) {
      if (!conditionFieldsMatch(cond, f)) continue;
      const t = toMillis(cond.lastTransitionTime);
      if (!Number.isNaN(t) && (Number.isNaN(latest) || t > latest)) latest = t;
    }
  }
  return Number.isNaN(latest) ? toMillis(pod.metadata.creationTimestamp) : latest;
}

function sumRestarts(statuses: ContainerStatus[] | undefined): number {
  let n = 0;
  if (statuses) for (const cs of statuses) n += cs.restartCount ?? 0;
  return n;
}

/** Regular containers' restarts, plus init containers' when asked (not ephemeral ones). */
export function restartCount(pod: Pod, c: LifecycleCriteria): number {
  const s = pod.status;
  if (s === undefined) return 0;
  return sumRestarts(s.containerStatuses) + (c.includingInitContainers ? sumRestarts(s.initContainerStatuses) : 0);
}
