import type { ContainerStatus, Pod } from '../../model/objects.js';
import { formatDuration, secondsSince, toMillis } from '../../model/time.js';
import { compileLabelSelector } from '../../policy/label-selector.js';
import { formatRanges, type ExitCodeRange } from '../../policy/common.js';
import {
  conditionFieldsMatch,
  containerGroups,
  matchingCondition,
  relevantTime,
  restartCount,
  type ConditionFilter,
  type LifecycleCriteria,
} from './criteria.js';

/** A compiled strategy: a fast yes/no, an explanation for the pods it selects, an order. */
export interface PodMatcher {
  matches(pod: Pod, now: number): boolean;
  /** Why the pod was selected, one clause per criterion; only called on matches. */
  explain(pod: Pod, now: number): string;
  /** Smaller first. */
  sortKey(pod: Pod): number;
  /**
   * When the pod, unchanged, matches: `now` or earlier if it matches now, a later instant if
   * only time stands in the way (an age or a condition's time since transition), undefined if
   * something else does. Time tests only ever turn true as time passes.
   */
  readyAt(pod: Pod, now: number): number | undefined;
  /**
   * Why a pod the strategy addresses is kept although it does not match (PodTTL: a TTL value it
   * cannot read), for decide to report; undefined for every other pod. The lifecycle strategies have none.
   */
  keptBecause?(pod: Pod, now: number): string | undefined;
}

type Test = (pod: Pod, now: number) => boolean;
/** For a time test: the first instant it holds (NaN: never, -Infinity: always). */
type ReadyAt = (pod: Pod) => number;

/**
 * Compiles criteria into a chain of tests, cheapest first, so that the common case (a
 * running pod that matches nothing) is rejected after a set lookup or two.
 */
export function compileCriteria(c: LifecycleCriteria, order: 'oldest' | 'most-restarts'): PodMatcher {
  const tests: Test[] = [];
  // The time tests also say when they start to hold; `untimed` are the others.
  const timed: ReadyAt[] = [];
  let untimed: Test[] = [];
  const include = c.namespaces?.include?.length ? new Set(c.namespaces.include) : undefined;
  const exclude = c.namespaces?.exclude?.length ? new Set(c.namespaces.exclude) : undefined;
  if (include) tests.push((p) => include.has(p.metadata.namespace ?? ''));
  if (exclude) tests.push((p) => !exclude.has(p.metadata.namespace ?? ''));
  if (c.phases?.length) {
    const phases = new Set(c.phases);
    tests.push((p) => phases.has(p.status?.phase ?? ''));
  }
  const states = c.states?.length ? new Set(c.states) : undefined;
  if (states) tests.push((p) => hasState(p, states, c));
  const exitCodes = c.exitCodes;
  if (exitCodes?.length) {
    tests.push((p) => {
      const s = p.status;
      if (s === undefined) return false;
      return anyExitCode(s.containerStatuses, exitCodes) || (c.includingInitContainers && anyExitCode(s.initContainerStatuses, exitCodes));
    });
  }
  if (c.minRestarts !== undefined) {
    const min = c.minRestarts;
    tests.push((p) => restartCount(p, c) >= min);
  }
  const ownerInclude = c.ownerKinds?.include?.length ? new Set(c.ownerKinds.include) : undefined;
  const ownerExclude = c.ownerKinds?.exclude?.length ? new Set(c.ownerKinds.exclude) : undefined;
  if (ownerInclude) tests.push((p) => (p.metadata.ownerReferences ?? []).some((o) => ownerInclude.has(o.kind)));
  if (ownerExclude) tests.push((p) => !(p.metadata.ownerReferences ?? []).some((o) => ownerExclude.has(o.kind)));
  if (c.labelSelector) {
    const labels = compileLabelSelector(c.labelSelector);
    tests.push((p) => labels(p.metadata.labels));
  }
  untimed = [...tests];
  if (c.olderThanSeconds !== undefined) {
    const max = c.olderThanSeconds;
    tests.push((p, now) => secondsSince(p.metadata.creationTimestamp, now) > max);
    // Whole seconds: age > max from the instant max + 1 seconds have passed.
    timed.push((p) => toMillis(p.metadata.creationTimestamp) + (max + 1) * 1000);
  }
  if (c.minAgeSeconds !== undefined) {
    const min = c.minAgeSeconds;
    tests.push((p, now) => secondsSince(p.metadata.creationTimestamp, now) >= min);
    timed.push((p) => toMillis(p.metadata.creationTimestamp) + min * 1000);
  }
  if (c.conditions?.length) {
    const filters = c.conditions;
    tests.push((p, now) => matchingCondition(p, filters, now) !== undefined);
    timed.push((p) => conditionReadyAt(p, filters));
  }

  return {
    matches(pod, now) {
      for (const t of tests) if (!t(pod, now)) return false;
      return true;
    },
    explain: (pod, now) => explain(pod, now, c, states),
    readyAt(pod, now) {
      for (const t of untimed) if (!t(pod, now)) return undefined;
      let at = -Infinity;
      for (const r of timed) {
        const x = r(pod);
        if (Number.isNaN(x)) return undefined;
        if (x > at) at = x;
      }
      return at;
    },
    sortKey:
      order === 'oldest'
        ? (pod) => relevantTime(pod, c.conditions)
        : // Most restarts first; the Date keeps ties oldest-first without a second key.
          (pod) => -restartCount(pod, c) * 1e13 + relevantTime(pod, undefined),
  };
}

/** The first instant a condition satisfies a filter (OR across filters and conditions). */
function conditionReadyAt(pod: Pod, filters: readonly ConditionFilter[]): number {
  let first = Number.NaN;
  for (const f of filters) {
    for (const cond of pod.status?.conditions ?? []) {
      if (!conditionFieldsMatch(cond, f)) continue;
      if (f.minTimeSinceLastTransitionSeconds === undefined) return -Infinity;
      const at = toMillis(cond.lastTransitionTime) + f.minTimeSinceLastTransitionSeconds * 1000;
      if (!Number.isNaN(at) && !(at >= first)) first = at;
    }
  }
  return first;
}

function anyExitCode(statuses: ContainerStatus[] | undefined, ranges: readonly ExitCodeRange[]): boolean {
  if (statuses === undefined) return false;
  for (const cs of statuses) {
    const code = cs.state?.terminated?.exitCode;
    if (code === undefined) continue;
    for (const r of ranges) if (code >= r.from && code <= r.to) return true;
  }
  return false;
}

/** The allocation-free form of matchedState, for the hot path. */
function hasState(pod: Pod, states: ReadonlySet<string>, c: LifecycleCriteria): boolean {
  const s = pod.status;
  if (s === undefined) return false;
  if (c.statesMatchPhase !== false && s.phase !== undefined && states.has(s.phase)) return true;
  if (s.reason !== undefined && states.has(s.reason)) return true;
  if (anyContainerState(s.containerStatuses, states)) return true;
  if (c.includingInitContainers && anyContainerState(s.initContainerStatuses, states)) return true;
  return c.includingEphemeralContainers && anyContainerState(s.ephemeralContainerStatuses, states);
}

function anyContainerState(statuses: ContainerStatus[] | undefined, states: ReadonlySet<string>): boolean {
  if (statuses === undefined) return false;
  for (const cs of statuses) {
    const st = cs.state;
    if (st === undefined) continue;
    if (st.waiting?.reason !== undefined && states.has(st.waiting.reason)) return true;
    if (st.terminated?.reason !== undefined && states.has(st.terminated.reason)) return true;
  }
  return false;
}

/** The first state value the pod shows, with where it was seen. */
function matchedState(pod: Pod, states: ReadonlySet<string>, c: LifecycleCriteria): string | undefined {
  const phase = pod.status?.phase;
  if (c.statesMatchPhase !== false && phase !== undefined && states.has(phase)) return `phase ${phase}`;
  const reason = pod.status?.reason;
  if (reason !== undefined && states.has(reason)) return `pod reason ${reason}`;
  for (const group of containerGroups(pod, c, true)) {
    for (const cs of group) {
      const waiting = cs.state?.waiting?.reason;
      if (waiting !== undefined && states.has(waiting)) return `container ${cs.name} waiting: ${waiting}`;
      const terminated = cs.state?.terminated?.reason;
      if (terminated !== undefined && states.has(terminated)) return `container ${cs.name} terminated: ${terminated}`;
    }
  }
  return undefined;
}

function matchedExitCode(pod: Pod, c: LifecycleCriteria): { cs: ContainerStatus; code: number } | undefined {
  const ranges = c.exitCodes ?? [];
  // Exit codes are read from regular and, when asked, init containers (not ephemeral ones).
  for (const group of containerGroups(pod, c, false)) {
    for (const cs of group) {
      const code = cs.state?.terminated?.exitCode;
      if (code === undefined) continue;
      for (const r of ranges) if (code >= r.from && code <= r.to) return { cs, code };
    }
  }
  return undefined;
}

function explain(pod: Pod, now: number, c: LifecycleCriteria, states: ReadonlySet<string> | undefined): string {
  const parts: string[] = [];
  if (c.phases?.length) parts.push(`phase ${pod.status?.phase}`);
  if (states) {
    const s = matchedState(pod, states, c);
    if (s && !(c.phases?.length && s.startsWith('phase '))) parts.push(s);
  }
  if (c.exitCodes?.length) {
    const m = matchedExitCode(pod, c);
    if (m) parts.push(`container ${m.cs.name} exited ${m.code} (in ${formatRanges(c.exitCodes)})`);
  }
  if (c.minRestarts !== undefined) parts.push(`${restartCount(pod, c)} restarts (threshold ${c.minRestarts})`);
  if (c.ownerKinds?.include?.length) parts.push(`owned by ${(pod.metadata.ownerReferences ?? []).map((o) => o.kind).join('/')}`);
  if (c.olderThanSeconds !== undefined) {
    parts.push(`age ${formatDuration(secondsSince(pod.metadata.creationTimestamp, now))} > ${formatDuration(c.olderThanSeconds)}`);
  }
  if (c.minAgeSeconds !== undefined) {
    // The relation that holds: "=" for a pod exactly at the minimum (selected: age >= min).
    const age = secondsSince(pod.metadata.creationTimestamp, now);
    parts.push(`age ${formatDuration(age)} ${age > c.minAgeSeconds ? '>' : '='} ${formatDuration(c.minAgeSeconds)}`);
  }
  if (c.conditions?.length) {
    const cond = matchingCondition(pod, c.conditions, now);
    if (cond) {
      const since = secondsSince(cond.lastTransitionTime, now);
      parts.push(`condition ${cond.type}=${cond.status}${cond.reason ? ` (${cond.reason})` : ''} for ${formatDuration(since)}`);
    }
  }
  return parts.join('; ');
}
