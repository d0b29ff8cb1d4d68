// What a change of the kubeTidy.objects rules would change (`kube-tidy plan --against`): both
// sets of rules decided by the pure core over ONE read of the objects either names (and their
// owners' context), at one instant, then compared (core/diff.ts). As for pods, nothing is
// written, not even as a dry run; a protected namespace's objects are kept on both sides, as
// the pass keeps them.
import type { ObjectKind, ObjectRule } from '../policy/objects-schema.js';
import { decideObjects } from './core/decide.js';
import { diffObjectPlans, type ObjectsDiff } from './core/diff.js';
import type { ObjectPlan } from './core/model.js';
import { readObjects, type ObjectsReader } from './io/read.js';

export type { ObjectChange, ObjectKindCount, ObjectSide, ObjectsDiff } from './core/diff.js';

export interface ObjectsDiffRead extends ObjectsDiff {
  /** Kinds a rule names that the cluster does not serve (Workload without Kueue). */
  notServed: ObjectKind[];
}

export interface ObjectsDiffOptions {
  reader: ObjectsReader;
  before: readonly ObjectRule[];
  after: readonly ObjectRule[];
  /** Only this namespace's objects. */
  namespace: string | undefined;
  protectedNamespaces: readonly string[];
  now: number;
}

/** What a rule selected in a protected namespace is kept, as the pass keeps it (objects/io/pass.ts). */
function shielded(plan: ObjectPlan, protectedNamespaces: readonly string[]): ObjectPlan {
  const guarded = new Set(protectedNamespaces);
  const inside = (x: { namespace: string }) => guarded.has(x.namespace);
  return {
    decisions: plan.decisions.filter((d) => !inside(d)),
    kept: [
      ...plan.kept,
      ...plan.decisions.filter(inside).map((d) => ({
        kind: d.kind,
        namespace: d.namespace,
        name: d.name,
        uid: d.uid,
        resourceVersion: d.resourceVersion,
        rule: d.rule,
        reason: 'in a protected namespace',
      })),
    ],
    eligible: plan.eligible.filter((e) => !inside(e)),
  };
}

/** Undefined when neither policy has object rules (the diff is the pods' alone, as it was). */
export async function objectsDiff(o: ObjectsDiffOptions): Promise<ObjectsDiffRead | undefined> {
  const { before, after } = o;
  if (before.length + after.length === 0) return undefined;
  const read = await readObjects(o.reader, [...before, ...after]);
  const objects = read.objects.filter((x) => o.namespace === undefined || x.namespace === o.namespace);
  const considered = new Map<ObjectKind, number>();
  for (const kind of new Set([...before, ...after].map((r) => r.kind))) considered.set(kind, 0);
  for (const x of objects) considered.set(x.kind, (considered.get(x.kind) ?? 0) + 1);
  const [planBefore, planAfter] = [before, after].map((rules) => shielded(decideObjects(rules, objects, read.ctx, o.now), o.protectedNamespaces)) as [
    ObjectPlan,
    ObjectPlan,
  ];
  return { ...diffObjectPlans(planBefore, planAfter, considered), notServed: read.notServed };
}
