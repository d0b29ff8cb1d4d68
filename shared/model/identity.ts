// Which object: the one identity type every family uses. `uid` and `resourceVersion` are what
// a write is tied to (preconditions): a decision made on one copy of an object can only ever
// change that copy, never a namesake created since or a newer state of it.

export interface ObjectId {
  /** Absent for cluster-scoped objects (nodes). */
  namespace?: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
}

/** A namespaced object whose uid is known: a pod a decision or a write names. */
export interface NamespacedId extends ObjectId {
  namespace: string;
  uid: string;
}

/** An object as stored: everything a precondition needs is known. */
export type StoredId = ObjectId & { uid: string; resourceVersion: string };

/** The identity of any object with metadata. */
export function idOf(o: { metadata: { namespace?: string; name?: string; uid?: string; resourceVersion?: string } }): ObjectId {
  const m = o.metadata;
  return {
    name: m.name ?? '',
    ...(m.namespace ? { namespace: m.namespace } : {}),
    ...(m.uid ? { uid: m.uid } : {}),
    ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
  };
}

/** "namespace/name" (or "name" for cluster-scoped objects), for answers and logs. */
export const keyOf = (id: Pick<ObjectId, 'namespace' | 'name'>): string => (id.namespace ? `${id.namespace}/${id.name}` : id.name);

declare const STORED: unique symbol;

/**
 * An object as the API server returned it from a read: only the kube edge makes these
 * (kube/from-client.ts). A write is tied to one by its uid and resourceVersion, so a decision
 * can only act on what the cluster holds, never on an event's claim about it.
 */
export type Stored<T> = T & { readonly [STORED]: true };

/** The identity of a stored pod, with the phase it was stored with: what a pod write needs. */
export type StoredPodId = Stored<StoredId & { phase: string }>;
