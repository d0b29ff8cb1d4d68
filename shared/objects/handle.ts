// What cleanup beyond pods (index.ts) takes instead of the whole process: what a pass reads,
// the writer, the admission port its deletes ask, the clock, the configured policy and the
// settings it obeys. The runtime's targets build it with `objectsHandle`; a host without a
// Runtime (the CLI) builds one from what it has, as defrag's handle is built.
import { DiscoveryCache } from './io/discovery-cache.js';
import { readPassConfig } from '../cleanup/config.js';
import { familyEdges, type FamilyEdges, type FamilySettings } from '../runtime/family-edges.js';
import type { Runtime } from '../runtime/runtime.js';
import type { ObjectsReader } from './io/read.js';

/**
 * Never touched (PROTECTED_NAMESPACES: what a rule selected there is kept, and said); every pass
 * only plans (DRY_RUN); and how many of a pass's deletes are in flight at once (SWEEP_CONCURRENCY,
 * as the pods' pass: started in the plan's order, each admitted first); kube-tidy's own namespace.
 */
export interface ObjectsSettings extends FamilySettings {
  concurrency: number;
  /** kube-tidy's own namespace (BRAKES_NAMESPACE: its ledger, its Lease): a ttl rule never deletes it nor anything in it. */
  ownNamespace?: string;
  /** How the host knows it, as a kept object's reason says it; absent: BRAKES_NAMESPACE. */
  ownNamespaceFrom?: string;
}

/** The process's edges (runtime/family-edges.ts): its policy's `kubeTidy.objects` rules, a delete's admission charged per kind, one CloudEvent per decision. */
export interface ObjectsHandle extends FamilyEdges<ObjectsReader> {
  settings: ObjectsSettings;
  /** The process's discovery answers, kept a while for a ttl kind's events (io/discovery-cache.ts); none: asked each time. */
  discovery?: DiscoveryCache;
}

/** The handle of a function process: the runtime's clients, writer, brakes and notifier. */
export function objectsHandle(rt: Runtime): ObjectsHandle {
  // Object deletes spend the same ledger as every removal, counted per kind (brakes/core/meters.ts
  // scopeKey), so a Job rate never spends the pods' budget.
  const edges = familyEdges(rt, 'objects');
  // Set on the edges themselves, not spread into a copy: their reader is read on use (the cluster may come later).
  return Object.assign(edges, {
    settings: { ...edges.settings, concurrency: readPassConfig(rt.env).SWEEP_CONCURRENCY, ownNamespace: rt.config.BRAKES_NAMESPACE },
    discovery: new DiscoveryCache(Date.now),
  });
}
