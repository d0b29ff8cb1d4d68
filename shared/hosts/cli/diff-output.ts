// How `kube-tidy plan --against` prints a policy diff, offline and live alike: JSON lines for
// scripts (one per pod that changes, one per namespace and strategy, one total, each with a
// `type`), tables for people, a summary line on stderr, and the exit code of the gate.
import { exceedsGate, type NewSelectionGate, type PodChange, type PolicyDiff, type SideView } from '../../selection/diff.js';
import { gateText } from './diff-args.js';
import type { ObjectsDiffRead } from '../../objects/diff.js';
import { objectsDiffSummary, objectsOverGate, printObjectsDiff } from './diff-objects-output.js';
import { jsonLine, table, type Format } from './output.js';

type Out = { out: (s: string) => void; err: (s: string) => void };

/** Exit code when the change newly selects more than --max-new allows: not 1 (an error) nor 2 (bad input), so CI can tell. */
export const EXIT_GATE = 3;

export interface DiffReport {
  diff: PolicyDiff;
  podsSeen: number;
  /** What the pods were: "in the dump", "listed in 3 pages". */
  seenWhere: string;
  /** The old policy, as the user named it. */
  against: string;
  gate?: NewSelectionGate;
  format: Format;
  /** The objects' half (objects/diff.ts); absent when neither policy has kubeTidy.objects rules. */
  objects?: ObjectsDiffRead;
}

/** Prints the diff and the summary; returns 0, or EXIT_GATE when the gate is exceeded. */
export function printDiff(r: DiffReport, io: Out): number {
  const { diff, gate } = r;
  const exceeded = gate !== undefined && exceedsGate(gate, diff.totals.new, r.podsSeen);
  if (r.format === 'json') {
    for (const c of diff.changes) io.out(jsonLine({ type: c.change, namespace: c.namespace, name: c.name, uid: c.uid, before: c.before, after: c.after }));
    for (const c of diff.counts) io.out(jsonLine({ type: 'count', ...c }));
    if (r.objects) printObjectsDiff(r.objects, gate, r.format, io);
    io.out(jsonLine({ type: 'total', podsSeen: r.podsSeen, ...diff.totals, ...(gate ? { maxNew: gateText(gate), exceeded } : {}) }));
  } else {
    io.out(
      diff.changes.length
        ? table(
            ['CHANGE', 'POD', 'BEFORE', 'AFTER', 'REASON'],
            diff.changes.map((c) => [c.change, `${c.namespace}/${c.name}`, cell(c.before), cell(c.after), reasonText(c)]),
          )
        : `no change: both policies select the same ${diff.totals.after} pods\n`,
    );
    if (diff.counts.length > 0) {
      const n = (x: number) => String(x);
      const t = diff.totals;
      io.out(
        `\n${table(
          ['NAMESPACE', 'STRATEGY', 'BEFORE', 'AFTER', 'NEW', 'RELEASED', 'CHANGED'],
          [
            ...diff.counts.map((c) => [c.namespace, c.strategy, n(c.before), n(c.after), n(c.new), n(c.released), n(c.changed)]),
            ['TOTAL', '', n(t.before), n(t.after), n(t.new), n(t.released), n(t.changed)],
          ],
        )}`,
      );
    }
    if (r.objects) printObjectsDiff(r.objects, gate, r.format, io);
  }
  const t = diff.totals;
  io.err(
    `plan --against ${r.against} (nothing was changed): ${t.new} newly selected, ${t.released} released, ${t.changed} changed strategy; ` +
      `${t.before} selected before, ${t.after} after, of ${r.podsSeen} pods ${r.seenWhere}` +
      `${gate ? `; --max-new ${gateText(gate)}: ${exceeded ? 'exceeded' : 'within'}` : ''}\n`,
  );
  if (r.objects) objectsDiffSummary(r.objects, gate, io);
  // Each kind against the gate on its own (diff-objects-output.ts): any one over it is exit 3.
  const objectsOver = r.objects ? objectsOverGate(r.objects.counts, gate) : [];
  if (exceeded) io.err(`kube-tidy: the new policy newly selects ${t.new} pods, more than --max-new ${gateText(gate!)} allows (exit ${EXIT_GATE})\n`);
  for (const c of objectsOver)
    io.err(`kube-tidy: the new policy newly deletes ${c.newlyDeleted} ${c.kind} objects, more than --max-new ${gateText(gate!)} allows (exit ${EXIT_GATE})\n`);
  return exceeded || objectsOver.length > 0 ? EXIT_GATE : 0;
}

const cell = (s: SideView): string => (s.status === 'selected' ? s.strategy : s.status === 'kept' ? `kept (${s.strategy})` : '-');

/** The reason of the side that selects, and why the other side did not (or selected it otherwise). */
function reasonText(c: PodChange): string {
  const { before: b, after: a } = c;
  if (c.change === 'new' && a.status === 'selected') return `${a.reason}${b.status === 'kept' ? ` (before: kept, ${b.reason})` : ''}`;
  if (c.change === 'released' && b.status === 'selected') return `${b.reason}${a.status === 'kept' ? ` (now kept: ${a.reason})` : ''}`;
  if (a.status === 'selected' && b.status === 'selected') return `${a.reason} (before: ${b.reason})`;
  return '';
}
