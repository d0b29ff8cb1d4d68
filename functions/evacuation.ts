import { A } from '../shared/evacuation/annotations.js';
import { readEvacuationConfig } from '../shared/evacuation/config.js';
import { evacuate, type EvacuationDeps } from '../shared/evacuation/evacuate.js';
import { EVICTION_REQUEST_GROUP, evictionRequestApiInstalled } from '../shared/evacuation/eviction-request.js';
import { customClient } from '../shared/evacuation/kubevirt.js';
import { tick } from '../shared/evacuation/tick.js';
import type { Pod } from '../shared/model/objects.js';
import { decide } from '../shared/plan/decide.js';
import { snapshotNeeds } from '../shared/plan/needs.js';
import { fetchContext } from '../shared/cleanup/io/context.js';
import { policyOf, type Runtime } from '../shared/runtime/runtime.js';
import { BadRequestError } from '../shared/serve/handle.js';
import { defineTarget } from '../shared/serve/target.js';

/**
 * `evacuation`: a pod event (a pod marked for evacuation, or any change to one under way) or a
 * poll tick. Start, poll, finish, time out, cancel: the state lives on the pod, so whichever
 * instance gets the next event or tick carries on from there.
 */
function evacuationParts(rt: Runtime) {
  const config = readEvacuationConfig(rt.env);
  const d: EvacuationDeps = {
    core: rt.clients.core,
    custom: customClient(rt.kubeConfig, rt.config.REQUEST_TIMEOUT_SECONDS * 1000),
    ...(rt.config.RECORD_EVENTS ? { events: rt.clients.events } : {}),
    config,
    now: rt.now,
    log: rt.log,
  };

  // The descheduler's contract: a pod whose owner marked it request-evict-only is evacuated
  // (not evicted) when a strategy decides to evict it; the strategy becomes the requester.
  async function strategyRequest(pod: Pod): Promise<string | undefined> {
    const a = pod.metadata.annotations ?? {};
    if (a[A.requestEvictOnly] === undefined || a[A.request] !== undefined || a[A.state] !== undefined) return undefined;
    const policy = policyOf(rt);
    const context = await fetchContext(rt, snapshotNeeds(policy));
    const plan = decide(policy, { ...context.snapshot, pods: [pod] }, rt.now(), { protectedNamespaces: rt.config.PROTECTED_NAMESPACES });
    const decision = plan.decisions.find((x) => x.uid === pod.metadata.uid && x.action === 'evict');
    return decision && `strategy:${decision.strategy}`;
  }

  return { d, config, strategyRequest };
}

export const evacuation = defineTarget({
  name: 'evacuation',
  accepts: { kinds: ['Pod', 'EvictionRequest'], ticks: true, plain: 'tick', hint: 'evacuation takes Pod events and schedule ticks' },
  needs: { policy: true, cluster: 'at-start' },
  setup: evacuationParts,
  async handle(input, { d, config, strategyRequest }, rt) {
    if (input.type === 'tick' || input.type === 'body') {
      const installed = await evictionRequestApiInstalled(rt.kubeConfig, rt.config.REQUEST_TIMEOUT_SECONDS * 1000);
      const summary = await tick(d, { budgetMs: rt.config.SWEEP_TIME_BUDGET_SECONDS * 1000 });
      const counts: Record<string, number> = {};
      for (const r of summary.results) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
      rt.log.info({ evacuation: { pods: summary.pods, ...counts } }, 'evacuation tick done');
      const evictionRequests = installed ? `${EVICTION_REQUEST_GROUP} is served but not handled yet` : `${EVICTION_REQUEST_GROUP} not installed`;
      return { outcome: 'polled', summary: { pods: summary.pods, ...counts, freedSlots: summary.freedSlots }, results: summary.results, evictionRequests };
    }
    const kind = input.type === 'object' ? input.event.object.kind : input.event.ref.kind;
    if (kind === 'EvictionRequest') throw new BadRequestError(422, `EvictionRequest (${EVICTION_REQUEST_GROUP}, KEP-4563) is not handled yet: mark the pod with ${A.request}`);
    const ref = { namespace: input.namespace, name: input.name };
    if (config.scope && ref.namespace !== config.scope) return { outcome: 'nothing-to-do', pod: `${ref.namespace}/${ref.name}`, why: `outside ${config.scope}` };
    // A strategy asking for a pod marked request-evict-only, judged on the event's copy; the
    // machine uses it only when the current pod is idle and carries no request of its own.
    const requester = input.type === 'object' && input.event.verb !== 'delete' ? await strategyRequest(input.event.object as unknown as Pod) : undefined;
    // Always the current pod, never the event's copy: its resourceVersion is the precondition.
    return { ...(await evacuate(d, ref, requester ? { strategyRequest: requester } : {})) };
  },
});
