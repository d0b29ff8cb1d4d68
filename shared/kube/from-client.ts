// client-node's typed objects are the core's wire types at runtime (same field names;
// timestamps as Date, which shared/model/objects.ts accepts), but not to the compiler: every
// V1 field is optional and enums are plain strings (V1Toleration.operator is `string`, the
// core says 'Exists' | 'Equal'). This is the one place that crosses that gap, checking the
// only thing the core relies on and the compiler cannot see: that metadata is there. It is
// also the only place that marks an object as stored (model/identity.ts): what a write needs.
import type { V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import type { Stored, StoredPodId } from '../model/identity.js';
import type { Node, Pod, PodDisruptionBudget } from '../model/objects.js';

/** A pod as client-node decodes it, or as the wire has it (direct-pods.ts): the same fields, timestamps as Date or string. */
export function toPod(pod: V1Pod | Pod): Stored<Pod> {
  if (!pod.metadata?.name) throw new Error('the API server returned a pod without metadata.name');
  return pod as unknown as Stored<Pod>;
}

export function toNode(node: V1Node): Stored<Node> {
  if (!node.metadata?.name) throw new Error('the API server returned a node without metadata.name');
  return node as unknown as Stored<Node>;
}

export function toPdb(pdb: V1PodDisruptionBudget): Stored<PodDisruptionBudget> {
  if (!pdb.metadata?.name) throw new Error('the API server returned a PodDisruptionBudget without metadata.name');
  return pdb as unknown as Stored<PodDisruptionBudget>;
}

/** Any object read from the API server, marked as such once its identity is checked. */
export function stored<T extends { metadata?: { name?: string } }>(o: T): Stored<T> {
  if (!o.metadata?.name) throw new Error('the API server returned an object without metadata.name');
  return o as Stored<T>;
}

/** What a write to `pod` is tied to: its uid, resourceVersion and the phase it had. */
export function storedPodId(pod: Stored<Pod>): StoredPodId {
  const m = pod.metadata;
  return {
    namespace: m.namespace ?? '',
    name: m.name ?? '',
    uid: m.uid ?? '',
    resourceVersion: m.resourceVersion ?? '',
    phase: pod.status?.phase ?? '',
  } as StoredPodId;
}

/**
 * The pod an event carries whole (Resource mode) from a source the process authenticated and
 * names as one whose events are the read (podTerminated's TRUSTED_POD_SENDERS): what that source
 * read from the API server's watch, taken as read. A write is tied to its uid and
 * resourceVersion, so it lands only if the stored pod is that very version; anything else is
 * answered 409 and the pod is read (cleanup/io/one-pod.ts). Undefined without a uid and a
 * resourceVersion: nothing to tie a write to, so the stored pod is read instead.
 */
export function watchedPod(copy: Pod): Stored<Pod> | undefined {
  const m = copy.metadata;
  if (!m?.name || !m.namespace || !m.uid || !m.resourceVersion) return undefined;
  return copy as Stored<Pod>;
}
