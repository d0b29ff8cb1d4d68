// Evacuation, wired: long-running evictions (KubeVirt live migration) started, polled,
// finished, timed out or cancelled, the state kept on the pod. The pure part is core/ (the
// state machine, the annotations that store its state, the limits, a pod as the machine sees
// it); its I/O io/ (one pass over a pod, a tick over all of them, the slots in the brakes' ledger, every
// KubeVirt call, EvictionRequest discovery); its configuration config.ts; what it takes from the
// process handle.ts. Every write goes through the handle's ClusterWriter: DRY_RUN, protected
// namespaces, Events.
import { decideOne } from '../cleanup/io/one-pod.js';
import type { Pod } from '../model/objects.js';
import type { Snapshot } from '../selection/snapshot.js';
import type { Runtime } from '../runtime/runtime.js';
import { EVACUATION_ANNOTATIONS as ANNOTATIONS } from '../model/keys.js';
import type { EvacuationConfig } from './config.js';
import { evacuationHandle, type EvacuationHandle } from './handle.js';
import type { EvacuationDeps } from './io/evacuate.js';
import { requesterName } from '../model/keys.js';
import { SlotStore, type SlotMemo } from './io/slot-store.js';

export { EVACUATION_ANNOTATIONS as ANNOTATIONS } from '../model/keys.js';
export { evacuate, type EvacuationDeps, type PassResult } from './io/evacuate.js';
export { tick, type TickSummary } from './io/tick.js';
export { EVICTION_REQUEST_GROUP, evictionRequestDiscovery } from './io/eviction-request.js';
export { respondAll, respondTo, respondToStored, type ResponderResult } from './io/responder.js';
export { KUBEVIRT_RESPONDER } from './core/responder.js';
export { SlotStore, listSlots, SLOT_STORE_NAME, type SlotMemo } from './io/slot-store.js';
export { readEvacuationConfig, type EvacuationConfig } from './config.js';
export { evacuationHandle, type EvacuationHandle, type EvacuationReader } from './handle.js';

export interface EvacuationParts {
  config: EvacuationConfig;
  /**
   * What one request works with: a writer and a slot store of its own (a dry run's slots live only
   * there), and whether new attempts ask through an EvictionRequest (lifecycle.k8s.io served).
   */
  deps(): Promise<EvacuationDeps>;
  /**
   * A strategy's request for a pod marked request-evict-only (`requester`, or none), and the
   * context the policy read, for a second look at the same pod as stored.
   */
  strategyRequest(pod: Pod, context?: Omit<Snapshot, 'pods'>): Promise<{ requester?: string; context?: Omit<Snapshot, 'pods'> }>;
}

/** A target's setup: the process is read once, into the handle (handle.ts); the parts see only that. */
export function evacuationParts(rt: Runtime): EvacuationParts {
  return evacuationPartsOf(evacuationHandle(rt));
}

/** Evacuation's parts from a handle, however it was built. */
export function evacuationPartsOf(h: EvacuationHandle): EvacuationParts {
  const config = h.config;
  // The process's side of its slot stores (one per request): the ledger it last saw (a deleted
  // or replaced one is rebuilt blind), and whether the previous release's slots are carried.
  const memo: SlotMemo = {};
  const deps = async (): Promise<EvacuationDeps> => {
    const writer = h.writer();
    // Discovery once per process (cached); `off` never asks.
    const served = config.evictionRequests === 'auto' && (await h.evictionRequestsServed());
    const via = served ? { evictionRequests: { requester: requesterName('evacuation') } } : {};
    // Charged to the policy's limits only when the operator said so (config.ts EVACUATION_CHARGE_BUDGETS).
    const admission = config.settings.chargeBudgets ? { admission: h.admission() } : {};
    const { core, custom } = h.reader;
    return {
      core,
      custom,
      writer,
      slotStore: new SlotStore(core, writer, {
        namespace: h.ledgerNamespace,
        legacyNamespace: config.namespace,
        memo,
        now: () => h.now(),
        log: h.log,
        metrics: h.metrics,
      }),
      config,
      now: () => h.now(),
      log: h.log,
      notifier: h.notifier,
      metrics: h.metrics,
      ...via,
      ...admission,
    };
  };

  // The descheduler's contract: a pod whose owner marked it request-evict-only is evacuated
  // (not evicted) when a strategy decides to evict it; the strategy becomes the requester.
  // Pod cleanup's own one-pod decision (cleanup/io/one-pod.ts): the same policy, gate and context.
  async function strategyRequest(pod: Pod, context?: Omit<Snapshot, 'pods'>) {
    const a = pod.metadata.annotations ?? {};
    if (a[ANNOTATIONS.requestEvictOnly] === undefined || a[ANNOTATIONS.request] !== undefined || a[ANNOTATIONS.state] !== undefined) return {};
    const one = await decideOne(h.cleanup, pod, context);
    return { ...(one.decision?.action === 'evict' ? { requester: `strategy:${one.decision.strategy}` } : {}), context: one.context };
  }

  return { config, deps, strategyRequest };
}
