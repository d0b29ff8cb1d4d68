import { BadRequestError } from '../shared/serve/resolve.js';
import { defineTarget, type Input } from '../shared/serve/target.js';
import { cleanupParts, decideOne, removeSelected, type CleanupParts, type OnePodResult } from '../shared/cleanup/index.js';
import { dueParts, type Due } from '../shared/cleanup/due/index.js';
import { watchedPod } from '../shared/kube/from-client.js';
import type { Pod } from '../shared/model/objects.js';
import type { Runtime } from '../shared/runtime/runtime.js';
import { trustedSendersOf, type TrustsSender } from '../shared/cleanup/trusted-senders.js';

export interface PodTerminatedParts extends CleanupParts {
  /** Acting at eligibleAt (shared/cleanup/due): this process's timers, the due list, the tick. */
  due: Due;
  /** Whose Resource-mode pod events are the read (TRUSTED_POD_SENDERS; none by default). */
  trusts: TrustsSender;
  /** Clears every timer: a process that stops (a standalone replica without its Lease) acts no more. */
  stop(): void;
}

const podTerminatedParts = (rt: Runtime): PodTerminatedParts => {
  const parts = cleanupParts(rt);
  const due = dueParts(parts.handle, rt.env);
  return { ...parts, due, trusts: trustedSendersOf(rt.env), stop: () => due.stop() };
};

/**
 * `podTerminated`: one pod event in, the lifecycle strategies decide for that pod, the
 * decision is carried out. From a sender TRUSTED_POD_SENDERS names (authenticated), the
 * event's whole pod is the read: decided on and written at its uid and resourceVersion, so the
 * write lands only on that very version; a 409 reads the stored pod and decides again. From
 * anyone else, or in Reference mode, the event's copy is only a hint: when it selects the pod,
 * the stored pod is read and decided on again, and only that decides the write. Repeats and
 * stale events change nothing.
 *
 * A pod only time stands in the way of is scheduled (shared/cleanup/due): this instance's timer acts
 * at its eligibleAt, and its entry in the due list lets any instance's tick act then if this
 * one scaled to zero or died. The tick (a PingSource every minute) reads only the due list;
 * one tick loop runs per process (others join it), and DUE_TICK_SENDERS names who may tick.
 */
export const podTerminated = defineTarget({
  name: 'podTerminated',
  // No plain ticks: a plain POST to podTerminated is a pod (a plain Pod JSON, Argo Events).
  accepts: { kinds: ['Pod'], verbs: ['add', 'update'], ticks: true, hint: 'podTerminated takes Pod events and its due-list ticks; full passes are sweep' },
  // Most events select nothing and need no cluster request: the client loads on first need.
  needs: { policy: true, cluster: 'on-demand' },
  setup: podTerminatedParts,
  async handle(input: Input, { handle: h, due, trusts }, call) {
    if (input.type === 'tick') {
      // Before anything is read: a tick holds a request and reads the due list (DUE_TICK_SENDERS).
      const refused = due.tickRefused(input.sender);
      if (refused) throw new BadRequestError(403, refused);
      return due.tick(call.deadline);
    }
    if (input.type !== 'object' && input.type !== 'reference') throw new Error('unreachable: accepts only pod events and ticks');
    const pod = `${input.namespace}/${input.name}`;
    const uid = input.type === 'object' ? input.event.object.metadata.uid : undefined;
    if (input.event.verb === 'delete') {
      if (uid) await due.forget(uid);
      return { outcome: 'nothing-to-do', pod, why: 'the pod is already deleted' };
    }
    if (input.type === 'object') {
      const copy = input.event.object as unknown as Pod;
      const podUid = copy.metadata.uid!;
      // Already being deleted (by a sweep, a person, the garbage collector): nothing to add.
      if (copy.metadata.deletionTimestamp) {
        await due.forget(podUid);
        return { outcome: 'nothing-to-do', pod, why: 'the pod is already terminating' };
      }
      // The event is the read: what a named source read from the API server's watch, written at its version.
      const watched = trusts(input.sender) ? watchedPod(copy) : undefined;
      if (watched) return answerAs(scheduleFrom(due, { namespace: input.namespace, name: input.name, uid: podUid }, await removeSelected(h, { watched })));
      // A cheap first look at the event's copy: most events select nothing, and answer
      // without a request. A copy that selects is not believed: the stored pod decides.
      const hint = await decideOne(h, copy);
      // Kept, and nothing else to do (kubeTidy.retention pushed out none of its owner's older
      // pods, for which no event comes): say when time alone brings it in, and schedule that.
      if (!hint.decision && !hint.older?.length) {
        const { scheduled } = await due.onDecision({ namespace: input.namespace, name: input.name, uid: podUid }, hint.eligibleAt);
        return {
          outcome: hint.kept.length ? 'kept' : 'nothing-to-do',
          pod,
          why: hint.why,
          kept: hint.kept,
          ...(hint.eligibleAt ? { eligibleAt: hint.eligibleAt } : {}),
          ...(scheduled ? { scheduled } : {}),
        };
      }
      const { resourceVersion } = copy.metadata;
      const answer = await removeSelected(
        h,
        { namespace: input.namespace, name: input.name, uid: podUid, ...(resourceVersion ? { resourceVersion } : {}) },
        hint.context,
      );
      return scheduleFrom(due, { namespace: input.namespace, name: input.name, uid: podUid }, answer);
    }
    // Reference mode carries no object: the stored pod is all there is to decide on, and to schedule from.
    return scheduleFrom(due, { namespace: input.namespace, name: input.name }, await removeSelected(h, { namespace: input.namespace, name: input.name }));
  },
});

/** The trusted path's answer as the first look's always was: the pod's uid is the event's, not said again. */
async function answerAs(answer: Promise<OnePodResult>): Promise<OnePodResult> {
  const { uid: _uid, ...said } = await answer;
  return said;
}

/**
 * After removeSelected decided on the stored pod: kept until a time (its answer's eligibleAt,
 * with the stored uid) schedules it; anything else settles what was scheduled for it (the
 * entry has served unless the brakes deferred it or the write failed).
 */
async function scheduleFrom(due: Due, ref: { namespace: string; name: string; uid?: string }, answer: OnePodResult): Promise<OnePodResult> {
  // The stored pod's uid (a reference names none; an event's must be the stored one's, or the answer is stale).
  const uid = answer.uid ?? ref.uid;
  if (!uid) return answer;
  if (answer.eligibleAt !== undefined) {
    const { scheduled } = await due.onDecision({ namespace: ref.namespace, name: ref.name, uid }, answer.eligibleAt);
    return { ...answer, ...(scheduled ? { scheduled } : {}) };
  }
  await due.settle(uid, answer);
  return answer;
}
