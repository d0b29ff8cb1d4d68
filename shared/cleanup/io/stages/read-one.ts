// The read stage of the one-pod path (one-pod.ts), what read.ts is for a pass's pages: the one
// pod, as stored (a GET), or as a named source read it from the API server's watch (an event's
// whole copy from a sender the process trusts: kube/from-client.ts `watchedPod`), and the
// context a policy reads besides pods, once (none for most policies: no request).
import { getPod } from '../../../kube/get.js';
import { keyOf, type Stored } from '../../../model/identity.js';
import type { Pod } from '../../../model/objects.js';
import type { Policy } from '../../../policy/policy.js';
import { snapshotNeeds } from '../../../selection/needs.js';
import type { Snapshot } from '../../../selection/snapshot.js';
import type { CleanupHandle } from '../../handle.js';
import type { OnePodResult } from '../results.js';

/** Which pod, as an event, a shard, a due entry or a pass named it; `uid` when known must be the stored pod's, `resourceVersion` is what it was seen at. */
export type PodRef = { namespace: string; name: string; uid?: string; resourceVersion?: string };

/** The pod as a trusted source read it (podTerminated's TRUSTED_POD_SENDERS): the read itself, no GET. */
export type Watched = { watched: Stored<Pod> };

/** What the one-pod path starts from. */
export type OneSource = PodRef | Watched;

/** The pod to decide on (a trusted source's copy, or as stored), or the answer when there is none to decide on. */
export type ReadOne = { pod: Stored<Pod> } | { answer: OnePodResult };

export async function readOne(h: Pick<CleanupHandle, 'ready' | 'reader'>, from: OneSource): Promise<ReadOne> {
  if ('watched' in from) {
    const copy = from.watched;
    const pod = keyOf({ namespace: copy.metadata.namespace ?? '', name: copy.metadata.name ?? '' });
    if (copy.metadata.deletionTimestamp) return { answer: { outcome: 'nothing-to-do', pod, why: 'the pod is already terminating' } };
    return { pod: copy };
  }
  const pod = keyOf(from);
  await h.ready();
  const stored = await getPod(h.reader.podReads, from);
  // An event about a pod (its uid named) that is gone: done already. A bare reference: nothing to do.
  if (!stored) return { answer: { outcome: from.uid ? 'gone' : 'nothing-to-do', pod, why: 'the pod no longer exists' } };
  if (from.uid && stored.metadata.uid !== from.uid)
    return { answer: { outcome: 'stale', pod, why: `the event was about uid ${from.uid}; the pod of that name now is ${stored.metadata.uid}` } };
  if (stored.metadata.deletionTimestamp) return { answer: { outcome: 'nothing-to-do', pod, why: 'the pod is already terminating' } };
  return { pod: stored };
}

/** The context `policy` reads beyond the pods (the client loaded on first need): most policies read none, and cost no request. */
export async function contextOf(h: CleanupHandle, policy: Policy): Promise<Omit<Snapshot, 'pods'>> {
  const needs = snapshotNeeds(policy);
  if (!Object.values(needs).some(Boolean)) return {};
  await h.ready();
  return (await (await import('../context.js')).fetchContext(h, needs)).snapshot;
}
