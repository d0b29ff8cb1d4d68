// The descheduler's EvictionsInBackground contract, as the writer needs it: a pod whose owner
// marked it `descheduler.alpha.kubernetes.io/request-evict-only` is never evicted directly
// while it runs; an eviction of it is answered by starting an evacuation (KubeVirt: a live
// migration). kube-tidy's evacuation family is that evacuation: asking it is writing its
// request annotation on the pod (evacuation/core/annotations.ts), which it follows from there.
import { EVACUATION_ANNOTATIONS as ANNOTATIONS } from '../model/keys.js';
import type { Stored, StoredPodId } from '../model/identity.js';
import type { OwnerReference, Pod } from '../model/objects.js';
import { storedPodId } from './from-client.js';

/** What a pod's own annotations say about removing it, as stored. */
export interface EvictOnly {
  /** Whoever already asked for its evacuation, or the state of one under way: nothing to ask again. */
  underWay?: string;
}

/**
 * A stored pod as the writer removes it: its identity, and what the request-evict-only rule
 * says about it. `evictOnly` is required, so no caller can forget the rule: removalTarget(pod)
 * reads it from the pod; `false` is a caller saying, with its reason beside it, that the rule
 * does not apply to what it removes.
 */
export type RemovalTarget = StoredPodId & {
  evictOnly: EvictOnly | false;
  /** Its controller (ownerReferences[controller=true]): whose Event series its removal counts in (event-series.ts). */
  owner?: OwnerReference;
};

export function removalTarget(pod: Stored<Pod>): RemovalTarget {
  const ctl = pod.metadata.ownerReferences?.find((o) => o.controller === true);
  const id = { ...storedPodId(pod), ...(ctl ? { owner: ctl } : {}) };
  const a = pod.metadata.annotations ?? {};
  if (a[ANNOTATIONS.requestEvictOnly] === undefined) return { ...id, evictOnly: false };
  const request = a[ANNOTATIONS.request];
  const state = a[ANNOTATIONS.state];
  const underWay = request !== undefined ? `requested by ${request || 'someone'}` : state !== undefined ? `an evacuation is ${state}` : undefined;
  return { ...id, evictOnly: underWay ? { underWay } : {} };
}

/** The annotation that asks the evacuation family to evacuate a pod (its value: who asks). */
export const EVACUATION_REQUEST = ANNOTATIONS.request;
