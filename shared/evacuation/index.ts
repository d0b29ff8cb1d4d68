// Evacuation, wired: long-running evictions (KubeVirt live migration) started, polled,
// finished, timed out or cancelled, the state kept on the pod. The pure part is core/ (the
// state machine, the annotations that store its state, the limits, a pod as the machine sees
// it); its I/O io/ (one pass over a pod, a tick over all of them, the ledger ConfigMap, every
// KubeVirt call, EvictionRequest discovery); its configuration config.ts. Every write goes
// through the runtime's ClusterWriter: DRY_RUN, protected namespaces, Events.
import { handleOf } from '../cleanup/handle.js';
import { decideOne } from '../cleanup/io/one-pod.js';
import type { Pod } from '../model/objects.js';
import type { Snapshot } from '../plan/snapshot.js';
import type { Runtime } from '../runtime/runtime.js';
import { ANNOTATIONS } from './core/annotations.js';
import { readEvacuationConfig, type EvacuationConfig } from './config.js';
import type { EvacuationDeps } from './io/evacuate.js';
import { requesterName } from './core/eviction-request.js';
import { evictionRequestApiInstalled } from './io/eviction-request.js';
import { Ledger } from './io/ledger.js';

export { ANNOTATIONS } from './core/annotations.js';
export { evacuate, type EvacuationDeps, type PassResult } from './io/evacuate.js';
export { tick, type TickSummary } from './io/tick.js';
export { EVICTION_REQUEST_GROUP, evictionRequestApiInstalled } from './io/eviction-request.js';
export { respondAll, respondTo, respondToStored, type ResponderResult } from './io/responder.js';
export { KUBEVIRT_RESPONDER } from './core/responder.js';
export { Ledger, listSlots, LEDGER_NAME } from './io/ledger.js';
export { readEvacuationConfig, type EvacuationConfig } from './config.js';

export interface EvacuationParts {
  config: EvacuationConfig;
  /**
   * What one request works with: a writer and a ledger of its own (a dry run's slots live only
   * there), and whether new attempts ask through an EvictionRequest (lifecycle.k8s.io served).
   */
  deps(): Promise<EvacuationDeps>;
  /**
   * A strategy's request for a pod marked request-evict-only (`requester`, or none), and the
   * context the policy read, for a second look at the same pod as stored.
   */
  strategyRequest(pod: Pod, context?: Omit<Snapshot, 'pods'>): Promise<{ requester?: string; context?: Omit<Snapshot, 'pods'> }>;
}

export function evacuationParts(rt: Runtime): EvacuationParts {
  const config = readEvacuationConfig(rt.env);
  const deps = async (): Promise<EvacuationDeps> => {
    const writer = rt.writer();
    // Discovery once per process (cached); `off` never asks.
    const served = config.evictionRequests === 'auto' && (await evictionRequestApiInstalled(rt.kubeConfig, rt.config.REQUEST_TIMEOUT_SECONDS * 1000));
    const via = served ? { evictionRequests: { requester: requesterName('evacuation') } } : {};
    return {
      core: rt.clients.core,
      custom: rt.clients.custom,
      writer,
      ledger: new Ledger(rt.clients.core, writer, config.namespace),
      config,
      now: rt.now,
      log: rt.log,
      ...via,
    };
  };

  // Pod cleanup's view of this process: its policy, reader and clock (no events of its own).
  const cleanup = handleOf(rt, 0);

  // The descheduler's contract: a pod whose owner marked it request-evict-only is evacuated
  // (not evicted) when a strategy decides to evict it; the strategy becomes the requester.
  // Pod cleanup's own one-pod decision (cleanup/io/one-pod.ts): the same policy, gate and context.
  async function strategyRequest(pod: Pod, context?: Omit<Snapshot, 'pods'>) {
    const a = pod.metadata.annotations ?? {};
    if (a[ANNOTATIONS.requestEvictOnly] === undefined || a[ANNOTATIONS.request] !== undefined || a[ANNOTATIONS.state] !== undefined) return {};
    const one = await decideOne(cleanup, pod, context);
    return { ...(one.decision?.action === 'evict' ? { requester: `strategy:${one.decision.strategy}` } : {}), context: one.context };
  }

  return { config, deps, strategyRequest };
}
