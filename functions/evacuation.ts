import {
  ANNOTATIONS,
  evacuate,
  EVICTION_REQUEST_GROUP,
  evacuationParts,
  KUBEVIRT_RESPONDER,
  respondAll,
  respondToStored,
  tick,
} from '../shared/evacuation/index.js';
import { getPod } from '../shared/kube/get.js';
import type { Pod } from '../shared/model/objects.js';
import { BadRequestError } from '../shared/serve/resolve.js';
import { defineTarget } from '../shared/serve/target.js';

/**
 * `evacuation`: a pod event (a pod marked for evacuation, or any change to one under way) or a
 * poll tick. Start, poll, finish, time out, cancel: the state lives on the pod, so whichever
 * instance gets the next event or tick carries on from there. With DRY_RUN nothing is
 * written, so each call plans from what is stored and answers what it would do.
 * When lifecycle.k8s.io (KEP-4563) is served, evacuations kube-tidy starts ask through
 * EvictionRequests, and each tick (or an Eviction event) answers the Evictions that name
 * kube-tidy.dev/kubevirt.
 */
export const evacuation = defineTarget({
  name: 'evacuation',
  accepts: {
    kinds: ['Pod', 'Eviction', 'EvictionRequest'],
    verbs: ['update'],
    ticks: true,
    plain: 'tick',
    hint: 'evacuation takes Pod and Eviction events and schedule ticks',
  },
  needs: { policy: true, cluster: 'at-start' },
  setup: evacuationParts,
  async handle(input, parts) {
    if (input.type === 'tick' || input.type === 'body') {
      const deps = await parts.deps();
      const summary = await tick(deps, { budgetMs: parts.config.tickBudgetMs });
      const responded = deps.evictionRequests ? await respondAll(deps, parts.config.responder) : [];
      const counts: Record<string, number> = {};
      for (const r of summary.results) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
      deps.log.info({ evacuation: { pods: summary.pods, ...counts } }, 'evacuation tick done');
      const evictionRequests = deps.evictionRequests
        ? `${EVICTION_REQUEST_GROUP} is served: evacuations ask through EvictionRequests (requester ${deps.evictionRequests.requester})`
        : parts.config.evictionRequests === 'off'
          ? `${EVICTION_REQUEST_GROUP} not used (EVACUATION_EVICTION_REQUESTS=off)`
          : `${EVICTION_REQUEST_GROUP} not installed`;
      return {
        outcome: 'polled',
        summary: {
          pods: summary.pods,
          ...counts,
          freedSlots: summary.freedSlots,
          ...(summary.requestsCollected === undefined ? {} : { requestsCollected: summary.requestsCollected }),
        },
        results: summary.results,
        evictionRequests,
        ...(deps.evictionRequests ? { responded } : {}),
      };
    }
    if (input.type === 'shard') throw new Error('unreachable: accepts no sweep shards');
    const kind = input.type === 'object' ? input.event.object.kind : input.event.ref.kind;
    // kube-tidy makes EvictionRequests, it does not take them in: its own progress is read back
    // on the next pod event or tick, and Evictions it responds to on ticks and their events.
    if (kind === 'EvictionRequest')
      throw new BadRequestError(
        422,
        `EvictionRequest (${EVICTION_REQUEST_GROUP}, KEP-4563) events are not taken: mark the pod with ${ANNOTATIONS.request}; kube-tidy's own EvictionRequests are followed on ticks`,
      );
    const ref = { namespace: input.namespace, name: input.name };
    if (parts.config.scope && ref.namespace !== parts.config.scope)
      return { outcome: 'nothing-to-do', pod: `${ref.namespace}/${ref.name}`, why: `outside ${parts.config.scope}` };
    if (kind === 'Eviction') {
      // A hint that an Eviction changed, so the responder need not wait for a tick: the stored
      // Eviction (its targetResponders) decides whether kube-tidy acts, not the event's copy.
      const deps = await parts.deps();
      if (!deps.evictionRequests)
        throw new BadRequestError(
          422,
          `Eviction (${EVICTION_REQUEST_GROUP}) events are taken only where the group is served and EVACUATION_EVICTION_REQUESTS is not off`,
        );
      const r = await respondToStored(deps, ref, parts.config.responder, KUBEVIRT_RESPONDER);
      return { outcome: r.step === 'none' ? 'nothing-to-do' : 'responded', why: r.why, responded: [r] };
    }
    // A strategy asking for a pod marked request-evict-only: the event's copy only says whether
    // to look; the stored pod (the same uid) decides, and the pass starts from it. The machine
    // uses the request only when that pod is idle and carries no request of its own.
    const copy = input.type === 'object' && input.event.verb !== 'delete' ? (input.event.object as unknown as Pod) : undefined;
    const hint = copy ? await parts.strategyRequest(copy) : {};
    if (copy && hint.requester) {
      const deps = await parts.deps();
      const stored = await getPod(deps.core, ref);
      const requester = stored && stored.metadata.uid === copy.metadata.uid ? (await parts.strategyRequest(stored, hint.context)).requester : undefined;
      return { ...(await evacuate(deps, ref, { ...(stored ? { initial: stored } : {}), ...(requester ? { strategyRequest: requester } : {}) })) };
    }
    // Always the current pod, never the event's copy: its resourceVersion is the precondition.
    return { ...(await evacuate(await parts.deps(), ref)) };
  },
  // A tick answers every pod's result; an event answers one pod's.
  observe(answer, metrics) {
    const results: { outcome: string }[] = 'results' in answer ? answer.results : answer.pod ? [answer] : [];
    for (const r of results) metrics.record('evacuations', 1, { state: r.outcome });
  },
});
