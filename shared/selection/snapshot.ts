import type { Namespace, Node, Pod, PodDisruptionBudget, PriorityClass } from '../model/objects.js';
import { compileLabelSelector, type LabelMatcher } from '../policy/label-selector.js';
import { BUILT_IN_PRIORITY_CLASSES } from '../model/priority.js';
import { freeOn, type Resources } from '../evictor/node-fit.js';
import type { SnapshotIndex } from '../evictor/snapshot-index.js';

/**
 * What the core decides over: the pods, and the context some checks need. Anything left out
 * is "unknown", and a check that needs it protects the pod rather than guess.
 */
export interface Snapshot {
  /** The pods to judge. */
  pods: readonly Pod[];
  /**
   * Every pod, when more than the judged ones are known: minReplicas counts an owner's pods
   * and nodeFit sums what runs on each node over these. Defaults to `pods`.
   */
  contextPods?: readonly Pod[];
  nodes?: readonly Node[];
  namespaces?: readonly Namespace[];
  pdbs?: readonly PodDisruptionBudget[];
  priorityClasses?: readonly PriorityClass[];
  /** PVC name -> storage class, keyed `namespace/name`; for PodsWithPVC's protectedStorageClasses. */
  pvcStorageClasses?: ReadonlyMap<string, string>;
}

function countOwners(pods: readonly Pod[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const pod of pods) for (const o of pod.metadata.ownerReferences ?? []) counts.set(o.uid, (counts.get(o.uid) ?? 0) + 1);
  return counts;
}

function groupByNode(pods: readonly Pod[]): Map<string, Pod[]> {
  const byNode = new Map<string, Pod[]>();
  for (const pod of pods) {
    const node = pod.spec?.nodeName;
    if (!node) continue;
    let list = byNode.get(node);
    if (!list) byNode.set(node, (list = []));
    list.push(pod);
  }
  return byNode;
}

export function indexSnapshot(s: Snapshot): SnapshotIndex {
  // Built on first use: most policies use neither minReplicas nor nodeFit, and a pass over
  // 100,000 pods for nothing is the largest cost of a decide call.
  let ownerCounts: Map<string, number> | undefined;
  let freeByNode: Map<string, Resources> | undefined;
  const priorityValues = new Map<string, number>(BUILT_IN_PRIORITY_CLASSES);
  for (const pc of s.priorityClasses ?? []) if (pc.metadata.name) priorityValues.set(pc.metadata.name, pc.value);
  let pdbsByNamespace: Map<string, LabelMatcher[]> | undefined;
  if (s.pdbs) {
    pdbsByNamespace = new Map();
    for (const pdb of s.pdbs) {
      const ns = pdb.metadata.namespace ?? '';
      let list = pdbsByNamespace.get(ns);
      if (!list) pdbsByNamespace.set(ns, (list = []));
      // A PDB with no selector selects no pods (policy/v1 semantics).
      list.push(pdb.spec?.selector ? compileLabelSelector(pdb.spec.selector) : () => false);
    }
  }
  return {
    nodes: s.nodes ? new Map(s.nodes.map((n) => [n.metadata.name ?? '', n])) : undefined,
    namespaces: s.namespaces ? new Map(s.namespaces.map((n) => [n.metadata.name ?? '', n])) : undefined,
    pdbsByNamespace,
    priorityValues,
    pvcStorageClasses: s.pvcStorageClasses,
    get ownerCounts() {
      return (ownerCounts ??= countOwners(s.contextPods ?? s.pods));
    },
    get freeByNode() {
      if (!freeByNode) {
        const byNode = groupByNode(s.contextPods ?? s.pods);
        freeByNode = new Map((s.nodes ?? []).map((n) => [n.metadata.name ?? '', freeOn(n, byNode.get(n.metadata.name ?? '') ?? [])]));
      }
      return freeByNode;
    },
  };
}
