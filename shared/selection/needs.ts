import { effectiveProtections } from '../evictor/schema.js';
import type { Policy } from '../policy/policy.js';
import { BUILT_IN_PRIORITY_CLASSES } from '../model/priority.js';

/**
 * Which parts of a snapshot a policy reads beyond the pods themselves, so an adapter fetches
 * only those: the common policy needs none, and an event costs no extra API request.
 */
export interface SnapshotNeeds {
  nodes: boolean;
  namespaces: boolean;
  pdbs: boolean;
  priorityClasses: boolean;
  pvcs: boolean;
  /** Every pod (not just the one an event names): minReplicas counts siblings, nodeFit sums node usage. */
  allPods: boolean;
}

export function snapshotNeeds(policy: Policy): SnapshotNeeds {
  const needs: SnapshotNeeds = {
    nodes: policy.nodeSelector !== undefined,
    namespaces: false,
    pdbs: false,
    priorityClasses: false,
    pvcs: false,
    allPods: false,
  };
  for (const { evictor } of policy.profiles) {
    const protections = effectiveProtections(evictor);
    if (evictor.nodeFit) needs.nodes = needs.allPods = true;
    if (evictor.minReplicas > 1) needs.allPods = true;
    if (evictor.namespaceLabelSelector) needs.namespaces = true;
    if (protections.has('PodsWithoutPDB')) needs.pdbs = true;
    if (protections.has('PodsWithPVC') && (evictor.podProtections.config?.PodsWithPVC?.protectedStorageClasses.length ?? 0) > 0) needs.pvcs = true;
    const cls = evictor.priorityThreshold?.name;
    if (cls !== undefined && !BUILT_IN_PRIORITY_CLASSES.has(cls)) needs.priorityClasses = true;
  }
  return needs;
}
