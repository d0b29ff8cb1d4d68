// "Keep the newest N per owner" (policy/retention.ts): which of the pods a strategy selects
// stay because they are among the newest Failed (or Succeeded) pods of their controller owner.
//
// Owner: the pod's ownerReference with `controller: true`; a Job's pods count under the Job's
// own controller when that is a CronJob (what the CronJob's history is), when the caller knows
// it (`JobOwners`). A pod with no controller owner is in no group: no rule keeps it.
//
// Newest: by when the pod finished, the latest `finishedAt` of its containers (init containers
// too), else its creationTimestamp (a pod failed before any container ran, e.g. evicted or
// rejected at admission). Finishing is what a Job's retries and a CronJob's runs are ordered
// by, and what someone reading the logs of "the last three failures" means; a pod created
// earlier but retried longer is the more recent failure. Equal times (timestamps have whole
// seconds) are ordered by uid, so that the ranking is a total order.
//
// A pod's rank is counted over every pod of its group in its phase that the caller has seen,
// selected by the strategy or not, and never depends on the order they were seen in: the
// sweep's pages may come in any order and give the same kept set. Pods already being
// deleted are not counted (they are going; counting them would keep fewer of those staying).
// A pod the caller has not seen can only make the pods it has seen rank newer than they are:
// a missing sibling keeps more, never fewer.
import type { OwnerReference, Pod } from '../model/objects.js';
import { toMillis } from '../model/time.js';
import type { RetentionRule } from '../policy/retention.js';

/** What groups pods: kind and name for the explanation, uid for identity. */
export interface Owner {
  kind: string;
  name: string;
  uid: string;
}

/** Job uid -> the CronJob that controls it (from a list of Jobs); Jobs not in it group on their own. */
export type JobOwners = ReadonlyMap<string, Owner>;

type RetainedPhase = 'Failed' | 'Succeeded';

/** What a pass keeps of each pod across pages: a few fields, not the pod. */
export interface Finished {
  uid: string;
  phase: RetainedPhase;
  /** Epoch ms (finishedAt, else creationTimestamp); NaN when neither is readable: ranks oldest. */
  at: number;
  /** The group's owner uid. */
  group: string;
}

export function controllerOf(pod: Pod): OwnerReference | undefined {
  return pod.metadata.ownerReferences?.find((o) => o.controller === true);
}

/** The owner a pod's history is kept under, with its namespace for the explanation. */
export function groupOf(pod: Pod, jobs?: JobOwners): (Owner & { namespace: string }) | undefined {
  const c = controllerOf(pod);
  if (!c) return undefined;
  const owner = (c.kind === 'Job' && jobs?.get(c.uid)) || c;
  return { kind: owner.kind, name: owner.name, uid: owner.uid, namespace: pod.metadata.namespace ?? '' };
}

/** When the pod finished: the latest container `finishedAt` (a field the core's model leaves out), else its creation. */
export function finishedAt(pod: Pod): number {
  let latest = Number.NaN;
  for (const list of [pod.status?.containerStatuses, pod.status?.initContainerStatuses]) {
    for (const c of list ?? []) {
      const t = toMillis(c.state?.terminated?.finishedAt);
      if (!Number.isNaN(t) && !(t <= latest)) latest = t;
    }
  }
  return Number.isNaN(latest) ? toMillis(pod.metadata.creationTimestamp) : latest;
}

/** The tuple a pod contributes, or undefined when no rule can keep it (not finished, no controller owner, going). */
export function finishedOf(pod: Pod, jobs?: JobOwners): Finished | undefined {
  const phase = pod.status?.phase;
  if (phase !== 'Failed' && phase !== 'Succeeded') return undefined;
  if (pod.metadata.deletionTimestamp) return undefined;
  const g = groupOf(pod, jobs);
  if (!g || !pod.metadata.uid) return undefined;
  return { uid: pod.metadata.uid, phase, at: finishedAt(pod), group: g.uid };
}

/** Newer first: later time, unknown times last, then uid (a total order, whatever the input order). */
function newerFirst(a: Finished, b: Finished): number {
  const an = Number.isNaN(a.at);
  const bn = Number.isNaN(b.at);
  if (an !== bn) return an ? 1 : -1;
  if (!an && a.at !== b.at) return b.at - a.at;
  return a.uid < b.uid ? 1 : a.uid > b.uid ? -1 : 0;
}

/**
 * The finished pods seen, per owner group, and each one's rank among its group's pods of its
 * phase (1: the newest). Add every pod seen (`see`), then ask (`keeps`).
 */
export class RetentionIndex {
  private readonly byUid = new Map<string, Finished>();
  /** One label per group for the explanations: `job batch/etl-28891`. */
  private readonly labels = new Map<string, string>();
  private ranks: Map<string, number> | undefined;

  constructor(private readonly jobs?: JobOwners) {}

  see(pod: Pod): void {
    const f = finishedOf(pod, this.jobs);
    if (!f) return;
    this.add(f);
    if (!this.labels.has(f.group)) {
      const g = groupOf(pod, this.jobs)!;
      this.labels.set(f.group, `${g.kind.toLowerCase()} ${g.namespace}/${g.name}`);
    }
  }

  /** A tuple seen elsewhere (the same pod twice, from an inconsistent list, counts once). */
  add(f: Finished): void {
    this.byUid.set(f.uid, f);
    this.ranks = undefined;
  }

  get size(): number {
    return this.byUid.size;
  }

  /** Why `rule` keeps the pod of this uid (it is among the newest it keeps), or undefined when it goes or no rule count covers it. */
  keeps(rule: RetentionRule | undefined, uid: string): string | undefined {
    if (!rule) return undefined;
    const f = this.byUid.get(uid);
    if (!f) return undefined;
    const keep = f.phase === 'Failed' ? rule.failed : rule.succeeded;
    if (keep === undefined) return undefined;
    const rank = this.rankOf(f);
    if (rank > keep) return undefined;
    return `${ordinal(rank)} newest ${f.phase} of ${this.labels.get(f.group) ?? `owner ${f.group}`}, keep ${keep}`;
  }

  private rankOf(f: Finished): number {
    if (!this.ranks) {
      // Sorted once per group and phase, after every pod is seen: a sweep asks for thousands of ranks.
      const groups = new Map<string, Finished[]>();
      for (const x of this.byUid.values()) {
        const k = `${x.group}\u0000${x.phase}`;
        let list = groups.get(k);
        if (!list) groups.set(k, (list = []));
        list.push(x);
      }
      this.ranks = new Map();
      for (const list of groups.values()) list.sort(newerFirst).forEach((x, i) => this.ranks!.set(x.uid, i + 1));
    }
    return this.ranks.get(f.uid)!;
  }
}

/** The first rule that names this run (or names nothing): rules are read in order. */
export function ruleFor(rules: readonly RetentionRule[] | undefined, profile: string, strategy: string): RetentionRule | undefined {
  return rules?.find((r) => (!r.profiles || r.profiles.includes(profile)) && (!r.strategies || r.strategies.includes(strategy)));
}

/** Whether some rule could keep this pod under this run: the event path reads the owner's other pods only then. */
export function ruleCovers(rule: RetentionRule | undefined, pod: Pod): boolean {
  const phase = pod.status?.phase;
  const count = phase === 'Failed' ? rule?.failed : phase === 'Succeeded' ? rule?.succeeded : undefined;
  return count !== undefined && controllerOf(pod) !== undefined;
}

/** 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 112th. */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}
