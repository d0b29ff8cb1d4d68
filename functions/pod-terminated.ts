import { defineTarget, type Input } from '../shared/serve/target.js';
import { cleanupParts, decideOne, removeSelected } from '../shared/cleanup/index.js';
import type { Pod } from '../shared/model/objects.js';

/**
 * `podTerminated`: one pod event in, the lifecycle strategies decide for that pod, the
 * decision is carried out. The event's copy is only a hint: when it selects the pod, the
 * stored pod is read and decided on again, and only that decides the write (tied to its uid
 * and resourceVersion). Repeats and stale events change nothing.
 */
export const podTerminated = defineTarget({
  name: 'podTerminated',
  accepts: { kinds: ['Pod'], verbs: ['add', 'update'], hint: 'podTerminated takes Pod events; schedule ticks go to sweep' },
  // Most events select nothing and need no cluster request: the client loads on first need.
  needs: { policy: true, cluster: 'on-demand' },
  setup: cleanupParts,
  async handle(input: Input, { handle: h }) {
    if (input.type !== 'object' && input.type !== 'reference') throw new Error('unreachable: accepts only pod events');
    const pod = `${input.namespace}/${input.name}`;
    if (input.event.verb === 'delete') return { outcome: 'nothing-to-do', pod, why: 'the pod is already deleted' };
    if (input.type === 'object') {
      const copy = input.event.object as unknown as Pod;
      // Already being deleted (by a sweep, a person, the garbage collector): nothing to add.
      if (copy.metadata.deletionTimestamp) return { outcome: 'nothing-to-do', pod, why: 'the pod is already terminating' };
      // A cheap first look at the event's copy: most events select nothing, and answer
      // without a request. A copy that selects is not believed: the stored pod decides.
      const hint = await decideOne(h, copy);
      // When only time stands in the way, say when (eligibleAt): no later event may come for it; a sweep acts then.
      if (!hint.decision)
        return {
          outcome: hint.kept.length ? 'kept' : 'nothing-to-do',
          pod,
          why: hint.why,
          kept: hint.kept,
          ...(hint.eligibleAt ? { eligibleAt: hint.eligibleAt } : {}),
        };
      const { uid, resourceVersion } = copy.metadata;
      return removeSelected(h, { namespace: input.namespace, name: input.name, uid: uid!, ...(resourceVersion ? { resourceVersion } : {}) }, hint.context);
    }
    // Reference mode carries no object: the stored pod is all there is to decide on.
    return removeSelected(h, { namespace: input.namespace, name: input.name });
  },
});
