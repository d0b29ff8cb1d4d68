// What a change of the kubeTidy.objects rules would change (`kube-tidy plan --against`): both
// sets of rules decided by the pure core over ONE read of the objects either names (and their
// owners' context), at one instant, then compared (core/diff.ts). As for pods, nothing is
// written, not even as a dry run; a protected namespace's objects are kept on both sides, as
// the pass keeps them.
import type { ObjectKind, ObjectRule } from '../policy/objects-schema.js';
import type { TtlRule } from '../policy/ttl-schema.js';
import { decideObjects } from './core/decide.js';
import { decideTtl, scopeOf } from './core/ttl.js';
import { diffObjectPlans, type ObjectsDiff } from './core/diff.js';
import type { ObjectPlan } from './core/model.js';
import { readObjects, type ObjectsReader } from './io/read.js';
import { readTtl, type TtlRead } from './io/ttl-read.js';

export type { ObjectChange, ObjectKindCount, ObjectSide, ObjectsDiff } from './core/diff.js';

export interface ObjectsDiffRead extends ObjectsDiff {
  /** Kinds a rule names that the cluster does not serve (Workload without Kueue). */
  notServed: ObjectKind[];
  /** Kinds a ttl rule names that could not be read, and why. */
  unavailable?: TtlRead['unavailable'];
}

export interface ObjectsDiffOptions {
  reader: ObjectsReader;
  before: readonly ObjectRule[];
  after: readonly ObjectRule[];
  /** Each side's ttl rules (TTL on any kind), decided over one read of the kinds either names. */
  ttlBefore?: readonly TtlRule[];
  ttlAfter?: readonly TtlRule[];
  /** Only this namespace's objects. */
  namespace: string | undefined;
  protectedNamespaces: readonly string[];
  /** The deployed kube-tidy's namespace, and how it is known: a ttl rule never deletes it nor anything in it, on either side. */
  own?: { namespace: string; from: string };
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

/** Both sides' ttl rules decided over one read (none without ttl rules): each side's plan, the kinds counted, what could not be read. */
async function ttlSides(
  o: ObjectsDiffOptions,
): Promise<{ plans: [ObjectPlan, ObjectPlan]; considered: Map<string, number>; unavailable: TtlRead['unavailable'] }> {
  const [before, after] = [o.ttlBefore ?? [], o.ttlAfter ?? []];
  const none = (): ObjectPlan => ({ decisions: [], kept: [], eligible: [] });
  if (before.length + after.length === 0) return { plans: [none(), none()], considered: new Map(), unavailable: [] };
  const read = await readTtl(o.reader, [...before, ...after]);
  const objects = read.objects.filter((x) => o.namespace === undefined || scopeOf(x) === o.namespace);
  const considered = new Map<string, number>();
  for (const x of objects) considered.set(x.gvk.kind, (considered.get(x.gvk.kind) ?? 0) + 1);
  const guard = { protectedNamespaces: o.protectedNamespaces, from: 'protected', ...(o.own ? { own: o.own } : {}) };
  return { plans: [decideTtl(before, objects, guard, o.now), decideTtl(after, objects, guard, o.now)], considered, unavailable: read.unavailable };
}

const joined = (a: ObjectPlan, b: ObjectPlan): ObjectPlan => ({
  decisions: [...a.decisions, ...b.decisions],
  kept: [...a.kept, ...b.kept],
  eligible: [...a.eligible, ...b.eligible],
});

/** Undefined when neither policy has object or ttl rules (the diff is the pods' alone, as it was). */
export async function objectsDiff(o: ObjectsDiffOptions): Promise<ObjectsDiffRead | undefined> {
  const { before, after } = o;
  if (before.length + after.length + (o.ttlBefore?.length ?? 0) + (o.ttlAfter?.length ?? 0) === 0) return undefined;
  // No objects rules: readObjects lists nothing.
  const read = await readObjects(o.reader, [...before, ...after]);
  const objects = read.objects.filter((x) => o.namespace === undefined || x.namespace === o.namespace);
  const ttl = await ttlSides(o);
  const considered = new Map<string, number>(ttl.considered);
  for (const kind of new Set([...before, ...after].map((r) => r.kind))) considered.set(kind, 0);
  for (const x of objects) considered.set(x.kind, (considered.get(x.kind) ?? 0) + 1);
  const [planBefore, planAfter] = [before, after].map((rules, i) =>
    joined(
      shielded(read.ctx ? decideObjects(rules, objects, read.ctx, o.now) : { decisions: [], kept: [], eligible: [] }, o.protectedNamespaces),
      ttl.plans[i]!,
    ),
  ) as [ObjectPlan, ObjectPlan];
  return {
    ...diffObjectPlans(planBefore, planAfter, considered),
    notServed: read.notServed,
    ...(ttl.unavailable.length ? { unavailable: ttl.unavailable } : {}),
  };
}
