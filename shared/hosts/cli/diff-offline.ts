// `kube-tidy plan --pods FILE --policy new.yaml --against old.yaml`: both policies decided by
// the pure core over the same dump at the same instant, limits and order as an offline plan
// applies them, then compared (selection/diff.ts). The brakes are not applied: they pace how fast a
// selection is removed, not what is selected, and the gate is about the selection.
import { decide } from '../../selection/decide.js';
import { diffPlans, type NewSelectionGate } from '../../selection/diff.js';
import type { Node, Pod } from '../../model/objects.js';
import type { Policy } from '../../policy/policy.js';
import { printDiff } from './diff-output.js';
import type { Format } from './output.js';

export interface OfflineDiff {
  policy: Policy;
  against: { policy: Policy; name: string };
  pods: readonly Pod[];
  nodes: readonly Node[] | undefined;
  now: number;
  protectedNamespaces: readonly string[];
  gate: NewSelectionGate | undefined;
  format: Format;
}

export function offlineDiff(o: OfflineDiff, io: { out: (s: string) => void; err: (s: string) => void }): number {
  const snapshot = { pods: o.pods, nodes: o.nodes };
  const opts = { protectedNamespaces: o.protectedNamespaces };
  const before = decide(o.against.policy, snapshot, o.now, opts);
  const after = decide(o.policy, snapshot, o.now, opts);
  return printDiff(
    {
      diff: diffPlans(before, after),
      podsSeen: o.pods.length,
      seenWhere: 'in the dump',
      against: o.against.name,
      format: o.format,
      ...(o.gate ? { gate: o.gate } : {}),
    },
    io,
  );
}
