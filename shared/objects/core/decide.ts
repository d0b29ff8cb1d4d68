// The object-cleanup core: rules, the objects as stored, their owners' context and `now` in; an
// ordered plan out (oldest condition first), each decision with its reason, each object kept
// with why, and when time alone will bring the others in (the due list's input). Pure.
// An object is decided by the first rule (in policy order) whose kind, namespaces, labels and
// conditions it matches, as a pod by the first strategy that selects it.
import type { Namespaces } from '../../policy/common.js';
import { compileLabelSelector, type LabelMatcher } from '../../policy/label-selector.js';
import { conditionsOf, type ObjectCondition, type ObjectRule } from '../../policy/objects-schema.js';
import type { ObjectContext, ObjectId, ObjectPlan, OwnerRef, RemovalTarget, StoredCondition, StoredObject } from './model.js';
import { protectedBy } from './protect.js';

interface Compiled {
  rule: ObjectRule;
  conditions: readonly ObjectCondition[];
  labels: LabelMatcher;
}

interface Candidate {
  o: StoredObject;
  c: Compiled;
  condition: StoredCondition;
  since: number;
}

/** namespaces {include|exclude}, as the descheduler reads them: include lists the only ones, exclude the ones left out. */
const inNamespaces = (ns: string, n: Namespaces | undefined): boolean => (n?.include?.length ? n.include.includes(ns) : !(n?.exclude ?? []).includes(ns));

const idOf = (o: StoredObject): ObjectId => ({ kind: o.kind, namespace: o.namespace, name: o.name, uid: o.uid, resourceVersion: o.resourceVersion });
const controllerOf = (o: StoredObject): OwnerRef | undefined => o.ownerReferences?.find((r) => r.controller === true);
const describe = (c: StoredCondition) => `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}`;

/** What a rule's match reads of an object: its kind, namespace, labels and conditions. */
export type Matchable = Pick<StoredObject, 'kind' | 'namespace' | 'labels' | 'conditions'>;

function matching(o: Matchable, c: Compiled): StoredCondition | undefined {
  if (o.kind !== c.rule.kind || !inNamespaces(o.namespace, c.rule.namespaces) || !c.labels(o.labels)) return undefined;
  return o.conditions.find((s) =>
    c.conditions.some((want) => want.type === s.type && want.status === s.status && (want.reason === undefined || want.reason === s.reason)),
  );
}

/**
 * Whether any rule's kind, namespaces, labels and conditions match `o` (its age and owners
 * aside): false, and no rule could select it whatever the time or the context.
 */
export function anyRuleMatches(rules: readonly ObjectRule[], o: Matchable): boolean {
  return rules.some((rule) => matching(o, { rule, conditions: conditionsOf(rule), labels: compileLabelSelector(rule.labelSelector) }) !== undefined);
}

/** The candidates of each rule, and the objects kept because their condition's age cannot be read. */
function candidatesOf(rules: readonly ObjectRule[], objects: readonly StoredObject[], plan: ObjectPlan): Candidate[] {
  const compiled = rules.map((rule) => ({ rule, conditions: conditionsOf(rule), labels: compileLabelSelector(rule.labelSelector) }));
  const out: Candidate[] = [];
  for (const o of objects) {
    for (const c of compiled) {
      const condition = matching(o, c);
      if (!condition) continue;
      const since = Date.parse(condition.lastTransitionTime ?? '');
      if (Number.isNaN(since))
        plan.kept.push({ ...idOf(o), rule: c.rule.name, reason: `${describe(condition)} has no lastTransitionTime: how long it has held is unknown` });
      else out.push({ o, c, condition, since });
      break;
    }
  }
  return out;
}

/** Newest first: the condition's time, then creation, then name (a stable order for equal times). */
const newestFirst = (a: Candidate, b: Candidate) =>
  b.since - a.since || Date.parse(b.o.creationTimestamp ?? '') - Date.parse(a.o.creationTimestamp ?? '') || a.o.name.localeCompare(b.o.name);

/** Why the owner rules keep each candidate of one owner's group (a CronJob's history, keepLast): uid -> reason. */
function keptByOwner(group: Candidate[], owner: OwnerRef | undefined, ctx: ObjectContext): Map<string, string> {
  const kept = new Map<string, string>();
  const sorted = [...group].sort(newestFirst);
  const cron = owner?.kind === 'CronJob' ? ctx.cronJobs.get(`${sorted[0]!.o.namespace}/${owner.name}`) : undefined;
  if (cron) {
    // The CronJob controller keeps this much history itself; kube-tidy never cuts into it.
    const limits: Record<string, [number, string]> = {
      Complete: [cron.successful, 'successfulJobsHistoryLimit'],
      Failed: [cron.failed, 'failedJobsHistoryLimit'],
    };
    const seen: Record<string, number> = {};
    for (const c of sorted) {
      const limit = limits[c.condition.type];
      if (!limit) continue;
      seen[c.condition.type] = (seen[c.condition.type] ?? 0) + 1;
      if (seen[c.condition.type]! <= limit[0]) kept.set(c.o.uid, `the newest ${limit[0]} of CronJob ${owner!.name}'s history (${limit[1]})`);
    }
  }
  const keepLast = sorted[0]!.c.rule.keepLast ?? 0;
  for (const c of sorted.slice(0, keepLast))
    if (!kept.has(c.o.uid)) kept.set(c.o.uid, `keepLast ${keepLast}: among the newest of ${owner ? `${owner.kind} ${owner.name}` : 'its owner'}`);
  return kept;
}

/** What a decision removes: a Workload's controller owner when it has one (the owner's deletion takes the Workload). */
function targetOf(o: StoredObject): RemovalTarget {
  const owner = o.kind === 'Workload' ? controllerOf(o) : undefined;
  if (owner) return { apiVersion: owner.apiVersion, kind: owner.kind, namespace: o.namespace, name: owner.name, uid: owner.uid };
  return { apiVersion: o.apiVersion, kind: o.kind, namespace: o.namespace, name: o.name, uid: o.uid };
}

/** Whole units, largest first where exact (1h, not 60m) or where it reads better (2d, 3h, 5m). */
function formatAge(ms: number): string {
  const s = Math.floor(ms / 1000);
  const units: [number, string][] = [
    [86_400, 'd'],
    [3600, 'h'],
    [60, 'm'],
  ];
  for (const [size, unit] of units) if (s >= 2 * size || (s >= size && s % size === 0)) return `${Math.floor(s / size)}${unit}`;
  return `${s}s`;
}

export function decideObjects(rules: readonly ObjectRule[], objects: readonly StoredObject[], ctx: ObjectContext, now: number): ObjectPlan {
  const plan: ObjectPlan = { decisions: [], kept: [], eligible: [] };
  const groups = new Map<string, Candidate[]>();
  for (const c of candidatesOf(rules, objects, plan)) {
    const owner = controllerOf(c.o);
    const k = `${c.c.rule.name}\0${owner ? owner.uid : `self:${c.o.uid}`}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  for (const group of groups.values()) {
    const byOwner = keptByOwner(group, controllerOf(group[0]!.o), ctx);
    for (const c of group) {
      const { rule } = c.c;
      const why = byOwner.get(c.o.uid) ?? protectedBy(c.o, rule, ctx);
      if (why) {
        plan.kept.push({ ...idOf(c.o), rule: rule.name, reason: why });
        continue;
      }
      const at = c.since + rule.minAge;
      if (at > now) {
        plan.eligible.push({ ...idOf(c.o), rule: rule.name, at });
        continue;
      }
      const reason = `${rule.name}: ${describe(c.condition)} for ${formatAge(now - c.since)} (minAge ${formatAge(rule.minAge)})`;
      plan.decisions.push({ ...idOf(c.o), rule: rule.name, mode: rule.mode, condition: describe(c.condition), since: c.since, reason, target: targetOf(c.o) });
    }
  }
  plan.decisions.sort((a, b) => a.since - b.since || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  plan.eligible.sort((a, b) => a.at - b.at);
  return plan;
}

/**
 * Why `o`, read again just before its write, no longer qualifies under `rule` (the rule that
 * decided it); undefined: its condition still matches, has held minAge, and nothing protects
 * it. The owner rules (a CronJob's history, keepLast) were judged over the whole listing and
 * are not judged again on one object.
 */
export function recheck(rule: ObjectRule, o: StoredObject, ctx: ObjectContext, now: number): string | undefined {
  const c = { rule, conditions: conditionsOf(rule), labels: compileLabelSelector(rule.labelSelector) };
  const condition = matching(o, c);
  if (!condition) return `no longer matches rule ${rule.name} (its condition changed, or its labels or namespace)`;
  const since = Date.parse(condition.lastTransitionTime ?? '');
  if (Number.isNaN(since)) return `${describe(condition)} has no lastTransitionTime`;
  if (since + rule.minAge > now) return `${describe(condition)} since ${new Date(since).toISOString()}: not yet for minAge ${formatAge(rule.minAge)}`;
  return protectedBy(o, rule, ctx);
}
