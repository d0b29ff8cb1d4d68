import { PatchStrategy, setHeaderOptions, type CoreV1Api } from '@kubernetes/client-node';
import { listPods, toKubeError, type KubeClients } from '../kube/index.js';
import type { Node } from '../model/objects.js';
import type { DefragInput, DefragPod, Move } from '../defrag/types.js';

// The cluster side of a defragmentation step: what the planner reads, and the marks a step
// leaves on nodes so that any instance can take the next one (nothing lives in a process).

export const MARK = 'kube-tidy.dev/defrag';
/** On the node being freed: the move whose replacement has not been verified yet. */
export const IN_FLIGHT = 'kube-tidy.dev/defrag-in-flight';

/** target: being freed (cordoned); freed: done (left cordoned for scale-down); reserved: a swap's held spot. */
export type Mark = 'target' | 'freed' | 'reserved';

export interface InFlight {
  move: Move;
  /** The owner's live pods when the eviction was made (the evicted one included): the replacement is the new uid. */
  ownerUids: string[];
  at: number;
}

export async function readCluster({ core, policy }: Pick<KubeClients, 'core' | 'policy'>): Promise<DefragInput & { requests: number }> {
  try {
    const [nodes, pdbs] = await Promise.all([core.listNode(), policy.listPodDisruptionBudgetForAllNamespaces()]);
    const pods: DefragPod[] = [];
    let requests = 2;
    for await (const page of listPods(core, { limit: 500 })) {
      pods.push(...(page.items as DefragPod[]));
      requests = 2 + page.requests;
    }
    return { nodes: nodes.items as Node[], pods, pdbs: pdbs.items as never, requests };
  } catch (e) {
    throw toKubeError(e, 'read nodes, pods and budgets for defragmentation');
  }
}

export const markOf = (n: Node): Mark | undefined => n.metadata.annotations?.[MARK] as Mark | undefined;

export function inFlightOf(n: Node): InFlight | undefined {
  const raw = n.metadata.annotations?.[IN_FLIGHT];
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as InFlight;
  } catch {
    return undefined; // Someone edited it by hand: treat as nothing in flight, re-plan.
  }
}

/**
 * On a node kube-tidy cordoned itself. Only such a node is uncordoned when kube-tidy gives it
 * back: one that was already cordoned (an operator's maintenance, a drain) stays cordoned.
 */
export const CORDONED = 'kube-tidy.dev/defrag-cordoned';

/**
 * Sets (or with null clears) the mark and the in-flight record in one patch. `cordon: true`
 * cordons the node and remembers that kube-tidy did, unless it was cordoned already;
 * `cordon: false` gives back only a cordon kube-tidy made. `node` is updated to match, so
 * the rest of the step sees what was written.
 */
export async function markNode(core: CoreV1Api, node: Node, change: { mark?: Mark | null; inFlight?: InFlight | null; cordon?: boolean }): Promise<void> {
  const name = node.metadata.name!;
  const annotations: Record<string, string | null> = {};
  if (change.mark !== undefined) annotations[MARK] = change.mark;
  if (change.inFlight !== undefined) annotations[IN_FLIGHT] = change.inFlight === null ? null : JSON.stringify(change.inFlight);
  let unschedulable: boolean | undefined;
  if (change.cordon === true && !node.spec?.unschedulable) {
    unschedulable = true;
    annotations[CORDONED] = 'true';
  } else if (change.cordon === false && node.metadata.annotations?.[CORDONED]) {
    unschedulable = false;
    annotations[CORDONED] = null;
  }
  const body = { metadata: { annotations }, ...(unschedulable === undefined ? {} : { spec: { unschedulable } }) };
  try {
    await core.patchNode({ name, body }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
  } catch (e) {
    throw toKubeError(e, `mark node ${name}`);
  }
  const kept = { ...node.metadata.annotations };
  for (const [k, v] of Object.entries(annotations)) {
    if (v === null) delete kept[k];
    else kept[k] = v;
  }
  node.metadata.annotations = kept;
  if (unschedulable !== undefined) node.spec = { ...node.spec, unschedulable };
}

/** The owner's pods that are live (not terminal, not terminating). */
export function ownerPods(pods: readonly DefragPod[], ownerUid: string): DefragPod[] {
  return pods.filter(
    (p) =>
      !p.metadata.deletionTimestamp &&
      p.status?.phase !== 'Succeeded' &&
      p.status?.phase !== 'Failed' &&
      (p.metadata.ownerReferences ?? []).some((o) => o.uid === ownerUid),
  );
}
