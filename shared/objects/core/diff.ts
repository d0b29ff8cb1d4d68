// The impact of a policy change on cleanup beyond pods (`kube-tidy plan --against`): the plans
// of the rules in force (before) and the proposed ones (after) over the same stored objects,
// compared object by object. Pure, as selection/diff.ts is for pods. What a gate counts is
// "newly deleted": objects the new rules would remove that today's leave alone or only report.
// A report rule removes nothing, so what it newly reports is shown but is not new work.
import type { ObjectDecision, ObjectPlan } from './model.js';

/** What one policy's rules do with an object of the diff. */
export type ObjectSide =
  | { status: 'selected'; rule: string; mode: ObjectDecision['mode']; reason: string }
  | { status: 'kept'; rule: string; reason: string }
  | { status: 'not-yet'; rule: string; at: number }
  | { status: 'unselected' };

export interface ObjectChange {
  /** new: selected only after; released: only before; changed: both, by another rule or mode. */
  change: 'new' | 'released' | 'changed';
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  before: ObjectSide;
  after: ObjectSide;
  /** Deleted after, not before (unselected, kept, not yet, or only reported). */
  newlyDeleted: boolean;
}

/** Per kind: objects listed, selected before and after, and the changes. */
export interface ObjectKindCount {
  kind: string;
  considered: number;
  before: number;
  after: number;
  new: number;
  released: number;
  changed: number;
  newlyDeleted: number;
}

export interface ObjectsDiff {
  /** New in the new plan's order, then released in the old one's, then changed in the new one's. */
  changes: ObjectChange[];
  /** One per kind listed, in the order of `considered`. */
  counts: ObjectKindCount[];
}

function sides(plan: ObjectPlan): Map<string, ObjectSide> {
  const m = new Map<string, ObjectSide>();
  const put = (uid: string, s: ObjectSide) => void (m.has(uid) || m.set(uid, s));
  for (const d of plan.decisions) put(d.uid, { status: 'selected', rule: d.rule, mode: d.mode, reason: d.reason });
  for (const k of plan.kept) put(k.uid, { status: 'kept', rule: k.rule, reason: k.reason });
  for (const e of plan.eligible) put(e.uid, { status: 'not-yet', rule: e.rule, at: e.at });
  return m;
}

const deletes = (s: ObjectSide) => s.status === 'selected' && s.mode === 'delete';

/** `considered`: the objects listed of each kind either policy names (in scope), in the order to count them. */
export function diffObjectPlans(before: ObjectPlan, after: ObjectPlan, considered: ReadonlyMap<string, number>): ObjectsDiff {
  const was = sides(before);
  const is = sides(after);
  const none: ObjectSide = { status: 'unselected' };
  const counts = new Map<string, ObjectKindCount>(
    [...considered].map(([kind, n]) => [kind, { kind, considered: n, before: 0, after: 0, new: 0, released: 0, changed: 0, newlyDeleted: 0 }]),
  );
  const count = (kind: string) => {
    let c = counts.get(kind);
    if (!c) counts.set(kind, (c = { kind, considered: 0, before: 0, after: 0, new: 0, released: 0, changed: 0, newlyDeleted: 0 }));
    return c;
  };
  const change = (kind: ObjectChange['change'], d: ObjectDecision, b: ObjectSide, a: ObjectSide): ObjectChange => {
    const c: ObjectChange = {
      change: kind,
      kind: d.kind,
      namespace: d.namespace,
      name: d.name,
      uid: d.uid,
      before: b,
      after: a,
      newlyDeleted: deletes(a) && !deletes(b),
    };
    count(d.kind)[kind]++;
    if (c.newlyDeleted) count(d.kind).newlyDeleted++;
    return c;
  };
  const added: ObjectChange[] = [];
  const released: ObjectChange[] = [];
  const moved: ObjectChange[] = [];
  for (const d of before.decisions) {
    count(d.kind).before++;
    const a = is.get(d.uid) ?? none;
    if (a.status !== 'selected') released.push(change('released', d, was.get(d.uid)!, a));
  }
  for (const d of after.decisions) {
    count(d.kind).after++;
    const a = is.get(d.uid)!;
    const b = was.get(d.uid) ?? none;
    if (b.status !== 'selected') added.push(change('new', d, b, a));
    else if (b.rule !== d.rule || b.mode !== d.mode) moved.push(change('changed', d, b, a));
  }
  return { changes: [...added, ...released, ...moved], counts: [...counts.values()] };
}
