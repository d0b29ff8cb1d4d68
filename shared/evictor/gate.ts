import type { Pod } from '../model/objects.js';
import type { SnapshotIndex } from './snapshot-index.js';
import { effectiveProtections, type DefaultEvictorArgs } from './schema.js';
import * as c from './checks.js';
import { ANNOTATION_EVICT, ANNOTATION_PREFER_NO_EVICTION } from '../model/keys.js';

export interface GateOptions {
  /** kube-tidy's own guard: namespaces never touched whatever the policy says. */
  protectedNamespaces: readonly string[];
  /** The policy's top-level nodeSelector (nodes to process). */
  nodeSelector?: string;
}

/** Returns why a pod is kept, or undefined when it may be acted on. */
export type Gate = (pod: Pod, action: c.Action, now: number) => string | undefined;

/**
 * The one place that decides whether a pod may be touched at all (DefaultEvictor's Filter
 * and PreEvictionFilter). Strategies only select; this only protects.
 */
export function compileGate(args: DefaultEvictorArgs, index: SnapshotIndex, options: GateOptions): Gate {
  // Never overridable, not even by the evict annotation: touching these is always wrong.
  // The node scope is here too: the descheduler only lists pods of Ready nodes inside the
  // policy's nodeSelector, so no annotation brings a pod elsewhere into play.
  const always: c.Check[] = [
    c.isTerminating,
    c.isMirror,
    c.isStatic,
    c.inProtectedNamespace(new Set(options.protectedNamespaces)),
    c.onReadyNode,
    c.onSelectedNode(options.nodeSelector),
  ].filter((x): x is c.Check => x !== undefined);
  const protections = effectiveProtections(args);
  // DefaultEvictor's Filter: what the evict annotation overrides.
  const filter: c.Check[] = [
    ...c.protectionChecks(protections, args),
    ...[
      // The descheduler applies the threshold inside its SystemCriticalPods protection: with
      // that protection off (evictSystemCriticalPods, or defaultDisabled) there is no threshold.
      protections.has('SystemCriticalPods') && args.priorityThreshold && (args.priorityThreshold.value !== undefined || args.priorityThreshold.name)
        ? c.priorityThreshold(args.priorityThreshold)
        : undefined,
      c.podLabels(args.labelSelector),
      c.minReplicas(args.minReplicas),
      c.minPodAge(args.minPodAge),
    ].filter((x): x is c.Check => x !== undefined),
  ];
  // DefaultEvictor's PreEvictionFilter: applies even to a pod with the evict annotation.
  const preEviction: c.Check[] = [c.namespaceLabels(args.namespaceLabelSelector), args.nodeFit ? c.nodeFit(args.nodeSelector) : undefined].filter(
    (x): x is c.Check => x !== undefined,
  );
  const mandatoryNoEviction = args.noEvictionPolicy === 'Mandatory';

  // One context reused across calls: the gate runs synchronously, and this keeps a sweep
  // over 100,000 pods from allocating one per pod.
  const ctx: c.CheckContext = { index, now: 0, action: 'delete' };
  const first = (checks: readonly c.Check[], pod: Pod): string | undefined => {
    for (const check of checks) {
      const why = check(pod, ctx);
      if (why) return why;
    }
    return undefined;
  };
  return (pod, action, now) => {
    ctx.now = now;
    ctx.action = action;
    const why = first(always, pod);
    if (why) return why;
    const annotations = pod.metadata.annotations;
    if (annotations?.[ANNOTATION_EVICT] === undefined) {
      if (mandatoryNoEviction && annotations?.[ANNOTATION_PREFER_NO_EVICTION] !== undefined) {
        return 'pod asks not to be evicted and noEvictionPolicy is Mandatory';
      }
      const filtered = first(filter, pod);
      if (filtered) return filtered;
    }
    return first(preEviction, pod);
  };
}
