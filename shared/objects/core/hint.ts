// Pure: what an event's copy of an object says a rule would match on. The watch takes every
// Job, and a running Job's status changes several times before it finishes; an update whose
// copy no rule could match (a Job not yet Complete or Failed, a claim still in use) is answered
// nothing-to-do without a read of its namespace. The copy is only trusted to skip: a copy that
// matches is decided on the stored object as before, so a forged condition still changes
// nothing, and a forged non-match only withholds a read (the next event or the sweep decides).
// A copy that does not read as an object of its kind is not a hint: the stored one decides.
import type { ObjectKind } from '../../policy/objects-schema.js';
import type { Matchable } from './decide.js';
import type { StoredCondition } from './model.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is Record<string, string> => isRecord(v) && Object.values(v).every((x) => typeof x === 'string');

function conditionsIn(status: unknown): StoredCondition[] | undefined {
  if (status === undefined) return [];
  if (!isRecord(status)) return undefined;
  const list = status.conditions ?? [];
  if (!Array.isArray(list)) return undefined;
  const out: StoredCondition[] = [];
  for (const c of list as unknown[]) {
    if (!isRecord(c) || typeof c.type !== 'string' || typeof c.status !== 'string') return undefined;
    out.push({ type: c.type, status: c.status, ...(typeof c.reason === 'string' ? { reason: c.reason } : {}) });
  }
  return out;
}

/** The copy as a rule's match reads it, or undefined when it does not read as one. */
export function hintOf(kind: ObjectKind, object: { metadata: Record<string, unknown>; status?: unknown }): Matchable | undefined {
  const { namespace, labels } = object.metadata;
  if (typeof namespace !== 'string' || (labels !== undefined && !isStrings(labels))) return undefined;
  const conditions = conditionsIn(object.status);
  if (!conditions) return undefined;
  return { kind, namespace, ...(labels ? { labels } : {}), conditions };
}

/**
 * Whether the copy names a controller owner: then an owner rule may group the object with its
 * owner's others and its namespace is read at once, without a GET of the object first that the
 * namespace's LIST would only repeat. Only which read comes first is taken from it: whatever the
 * copy says, the stored object decides (one said unowned but owned is read with its namespace).
 */
export function controlledInCopy(object: { metadata: Record<string, unknown> }): boolean {
  const refs = object.metadata.ownerReferences;
  return Array.isArray(refs) && refs.some((o: unknown) => isRecord(o) && o.controller === true);
}
