// The cluster side of a defragmentation step: what the planner reads (nodes, every pod, the
// budgets) and the node marks it writes (core/marks.ts says what they are). Writes go through
// the ClusterWriter, so a dry run (DRY_RUN, or a plan-only call) changes nothing.
import type { KubeClients } from '../../kube/clients.js';
import { toKubeError } from '../../kube/errors.js';
import { toNode, toPdb } from '../../kube/from-client.js';
import { listPods } from '../../kube/list.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { Stored } from '../../model/identity.js';
import type { Node, Pod } from '../../model/objects.js';
import { applyPatch, markPatch, type MarkChange } from '../core/marks.js';
import type { DefragInput } from '../core/types.js';

export interface Cluster extends DefragInput {
  nodes: Node[];
  /** As the API server returned them: what an eviction is tied to. */
  pods: Stored<Pod>[];
}

/** Every node, every pod (`pageSize` per LIST page) and every PodDisruptionBudget. */
export async function readCluster({ core, policy }: Pick<KubeClients, 'core' | 'policy'>, pageSize: number): Promise<Cluster> {
  try {
    const [nodes, pdbs] = await Promise.all([core.listNode(), policy.listPodDisruptionBudgetForAllNamespaces()]);
    const pods: Stored<Pod>[] = [];
    for await (const page of listPods(core, { limit: pageSize })) pods.push(...page.items);
    return { nodes: nodes.items.map(toNode), pods, pdbs: pdbs.items.map(toPdb) };
  } catch (e) {
    throw toKubeError(e, 'read nodes, pods and budgets for defragmentation');
  }
}

/**
 * Writes a mark change on `node` through the writer (a merge patch; no resourceVersion
 * precondition: the marks are kube-tidy's own and a step re-reads them all) and updates
 * `node` to match, so the rest of the step sees what was written, in a dry run too.
 */
export async function markNode(writer: ClusterWriter, node: Node, change: MarkChange): Promise<void> {
  const patch = markPatch(node, change);
  await writer.patchNode({ name: node.metadata.name! }, patch);
  applyPatch(node, patch);
}
