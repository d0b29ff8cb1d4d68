import type { PodDisruptionBudget, Pod, IntOrPercent } from '../../model/objects.js';
import { compileLabelSelector } from '../../policy/label-selector.js';

// PodDisruptionBudgets as "how many of these pods may be away at once". The disruption
// controller's status.disruptionsAllowed is the truth when present (it knows the owner's
// scale and which pods are healthy); without it (an offline dump) the spec is applied to the
// matching pods, taking the pods seen as the expected count.

export interface Budget {
  name: string;
  allowed: number;
}

function scaled(v: IntOrPercent, total: number): number {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  // Both fields round percentages up (the disruption controller's choice): fewer disruptions.
  if (m) return Math.ceil((Number(m[1]) * total) / 100);
  const n = Number(v);
  return Number.isInteger(n) ? n : Number.NaN;
}

export function disruptionsAllowed(pdb: PodDisruptionBudget, matching: readonly Pod[]): number {
  const fromStatus = pdb.status?.disruptionsAllowed;
  if (fromStatus !== undefined) return fromStatus;
  const expected = matching.length;
  const healthy = matching.filter((p) => p.status?.phase === 'Running').length;
  const spec = pdb.spec ?? {};
  let allowed: number;
  if (spec.maxUnavailable !== undefined) allowed = scaled(spec.maxUnavailable, expected) - (expected - healthy);
  else if (spec.minAvailable !== undefined) allowed = healthy - scaled(spec.minAvailable, expected);
  else allowed = 0; // Nothing to go on: allow nothing rather than guess.
  return Number.isNaN(allowed) ? 0 : Math.max(0, allowed);
}

/** Budgets and, per pod index, the budgets covering it. */
export function indexBudgets(pdbs: readonly PodDisruptionBudget[], pods: readonly Pod[]): { budgets: Budget[]; byPod: number[][] } {
  const byPod: number[][] = pods.map(() => []);
  const byNamespace = new Map<string, number[]>();
  pods.forEach((p, i) => {
    const ns = p.metadata.namespace ?? '';
    let list = byNamespace.get(ns);
    if (!list) byNamespace.set(ns, (list = []));
    list.push(i);
  });
  const budgets: Budget[] = [];
  for (const pdb of pdbs) {
    const ns = pdb.metadata.namespace ?? '';
    // A budget without a selector selects nothing (policy/v1).
    if (!pdb.spec?.selector) continue;
    const matches = compileLabelSelector(pdb.spec.selector);
    const members = (byNamespace.get(ns) ?? []).filter((i) => matches(pods[i]!.metadata.labels));
    const id = budgets.length;
    budgets.push({
      name: `${ns}/${pdb.metadata.name ?? ''}`,
      allowed: disruptionsAllowed(
        pdb,
        members.map((i) => pods[i]!),
      ),
    });
    for (const i of members) byPod[i]!.push(id);
  }
  return { budgets, byPod };
}
