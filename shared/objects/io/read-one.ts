// What an event (or a due timer) about one object reads: that object first, by name. The owner
// rules are the only ones that look beyond an object (a CronJob's history and keepLast count an
// owner's objects; their group is the object's controller owner), so an object no controller
// owns is decided on itself alone, exactly as a read of its namespace would decide it: the
// namespace is not read (under a storm of finished Jobs in one namespace, each event would
// otherwise read every Job of it). A claim adds what names it (its namespace's pods and
// workloads, its volume: claimContextFor), as a claim's write is checked against. An owned
// object is decided on its namespace, as before.
import type { ObjectKind, ObjectRule } from '../../policy/objects-schema.js';
import { emptyContext } from '../core/model.js';
import { claimContextFor, readObjects, readStored, type ObjectsRead, type ObjectsReader } from './read.js';

export async function readAround(
  r: ObjectsReader,
  rules: readonly ObjectRule[],
  one: { kind: ObjectKind; namespace: string; name: string },
): Promise<ObjectsRead> {
  const stored = await readStored(r, one.kind, one);
  if (!stored) return { objects: [], ctx: emptyContext(), notServed: [] };
  if (stored.ownerReferences?.some((o) => o.controller)) return readObjects(r, rules, { namespace: one.namespace });
  const ctx = stored.kind === 'PersistentVolumeClaim' ? await claimContextFor(r, stored) : emptyContext();
  return { objects: [stored], ctx, notServed: [] };
}
