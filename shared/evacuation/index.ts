// Evacuation, wired: long-running evictions (KubeVirt live migration) started, polled,
// finished, timed out or cancelled, the state kept on the pod. The pure part is core/ (the
// state machine, the annotations that store its state, the limits, a pod as the machine sees
// it); its I/O io/ (one pass over a pod, a tick over all of them, the ledger ConfigMap, every
// KubeVirt call, EvictionRequest discovery); its configuration config.ts. Every write goes
// through the runtime's ClusterWriter: DRY_RUN, protected namespaces, Events.
import { fetchContext } from '../cleanup/io/context.js';
import type { Pod } from '../model/objects.js';
import { decide } from '../plan/decide.js';
import { snapshotNeeds } from '../plan/needs.js';
import { policyOf, type Runtime } from '../runtime/runtime.js';
import { ANNOTATIONS } from './core/annotations.js';
import { readEvacuationConfig, type EvacuationConfig } from './config.js';
import type { EvacuationDeps } from './io/evacuate.js';
import { Ledger } from './io/ledger.js';

export { ANNOTATIONS } from './core/annotations.js';
export { evacuate, type EvacuationDeps, type PassResult } from './io/evacuate.js';
export { tick, type TickSummary } from './io/tick.js';
export { EVICTION_REQUEST_GROUP, evictionRequestApiInstalled } from './io/eviction-request.js';
export { Ledger, listSlots, LEDGER_NAME } from './io/ledger.js';
export { readEvacuationConfig, type EvacuationConfig } from './config.js';

export interface EvacuationParts {
  config: EvacuationConfig;
  /** What one request works with: a writer and a ledger of its own (a dry run's slots live only there). */
  deps(): EvacuationDeps;
  /** A strategy's request for a pod marked request-evict-only, or undefined. */
  strategyRequest(pod: Pod): Promise<string | undefined>;
}

export function evacuationParts(rt: Runtime): EvacuationParts {
  const config = readEvacuationConfig(rt.env);
  const deps = (): EvacuationDeps => {
    const writer = rt.writer();
    return { core: rt.clients.core, custom: rt.clients.custom, writer, ledger: new Ledger(rt.clients.core, writer, config.namespace), config, now: rt.now, log: rt.log };
  };

  // The descheduler's contract: a pod whose owner marked it request-evict-only is evacuated
  // (not evicted) when a strategy decides to evict it; the strategy becomes the requester.
  async function strategyRequest(pod: Pod): Promise<string | undefined> {
    const a = pod.metadata.annotations ?? {};
    if (a[ANNOTATIONS.requestEvictOnly] === undefined || a[ANNOTATIONS.request] !== undefined || a[ANNOTATIONS.state] !== undefined) return undefined;
    const policy = policyOf(rt);
    const context = await fetchContext(rt, snapshotNeeds(policy));
    const plan = decide(policy, { ...context.snapshot, pods: [pod] }, rt.now(), { protectedNamespaces: rt.config.PROTECTED_NAMESPACES });
    const decision = plan.decisions.find((x) => x.uid === pod.metadata.uid && x.action === 'evict');
    return decision && `strategy:${decision.strategy}`;
  }

  return { config, deps, strategyRequest };
}
