// Pure: the marks a defragmentation step leaves on nodes, so that any instance can take the
// next step (nothing lives in a process), read and changed. io/cluster.ts writes them.
import type { Node, Pod } from '../../model/objects.js';
import type { Move } from './types.js';
import { DEFRAG_CORDONED as CORDONED, DEFRAG_IN_FLIGHT as IN_FLIGHT, DEFRAG_MARK as MARK } from '../../model/keys.js';

// The marks' keys are names kube-tidy owns (model/keys.ts, beside the others).
export { CORDONED, IN_FLIGHT, MARK };

/** target: being freed (cordoned); freed: done (left cordoned for scale-down); reserved: a swap's held spot. */
export type Mark = 'target' | 'freed' | 'reserved';

export interface InFlight {
  move: Move;
  /** The owner's live pods when the eviction was made (the evicted one included): the replacement is the new uid. */
  ownerUids: string[];
  at: number;
  /**
   * The pod was marked request-evict-only, so the move asked for its evacuation instead of
   * evicting it (evict-only.ts): it leaves when the evacuation ends (a live-migrated VM's
   * source pod completes), not at once, and the next step waits for that.
   */
  evacuation?: true;
}

export interface MarkChange {
  mark?: Mark | null;
  inFlight?: InFlight | null;
  cordon?: boolean;
}

/** A node merge patch: annotations (null removes) and, when it changes, the cordon. */
export interface NodePatch {
  metadata: { annotations: Record<string, string | null> };
  spec?: { unschedulable: boolean };
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
 * The patch that sets (or with null clears) the mark and the in-flight record. `cordon: true`
 * cordons the node and remembers that kube-tidy did, unless it was cordoned already;
 * `cordon: false` gives back only a cordon kube-tidy made.
 */
export function markPatch(node: Node, change: MarkChange): NodePatch {
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
  return { metadata: { annotations }, ...(unschedulable === undefined ? {} : { spec: { unschedulable } }) };
}

/** `node` updated in place to what `patch` writes, so the rest of a step sees it. */
export function applyPatch(node: Node, patch: NodePatch): void {
  const kept = { ...node.metadata.annotations };
  for (const [k, v] of Object.entries(patch.metadata.annotations)) {
    if (v === null) delete kept[k];
    else kept[k] = v;
  }
  node.metadata.annotations = kept;
  if (patch.spec) node.spec = { ...node.spec, unschedulable: patch.spec.unschedulable };
}

/** The owner's pods that are live (not terminal, not terminating). */
export function ownerPods(pods: readonly Pod[], ownerUid: string): Pod[] {
  return pods.filter(
    (p) =>
      !p.metadata.deletionTimestamp &&
      p.status?.phase !== 'Succeeded' &&
      p.status?.phase !== 'Failed' &&
      (p.metadata.ownerReferences ?? []).some((o) => o.uid === ownerUid),
  );
}
