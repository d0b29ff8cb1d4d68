// How `kube-tidy plan --against` prints the objects' half of a diff (objects/diff.ts), in the
// pods' format (diff-output.ts): JSON lines with a `type` of their own (object-new,
// object-released, object-changed, object-count: a script reading the pods' types reads them as
// before), or a table of the objects and one of the counts per kind; a summary line on stderr.
// The gate (--max-new) holds per kind, over what the new policy newly DELETES: a Job takes its
// pods, a claim its data, so neither is counted as a pod, and a percentage is of that kind's
// objects listed; a report rule removes nothing, so what it newly reports is shown, not counted.
import { exceedsGate, type NewSelectionGate } from '../../selection/diff.js';
import { gateText } from './diff-args.js';
import type { ObjectKindCount, ObjectSide, ObjectsDiffRead } from '../../objects/diff.js';
import { jsonLine, table, type Format } from './output.js';

type Out = { out: (s: string) => void; err: (s: string) => void };

const cell = (s: ObjectSide): string =>
  s.status === 'selected' ? `${s.mode} (${s.rule})` : s.status === 'kept' ? `kept (${s.rule})` : s.status === 'not-yet' ? `not yet (${s.rule})` : '-';

/** The side that selects says why; the other side's reason for not, when it has one. */
function reasonText(b: ObjectSide, a: ObjectSide): string {
  const other = (s: ObjectSide) =>
    s.status === 'kept'
      ? `kept: ${s.reason}`
      : s.status === 'not-yet'
        ? `eligible at ${new Date(s.at).toISOString()}`
        : s.status === 'selected'
          ? s.reason
          : '';
  const [selecting, then, word] = a.status === 'selected' ? [a, b, 'before'] : [b, a, 'now'];
  const why = selecting.status === 'selected' ? selecting.reason : '';
  const not = other(then);
  return not ? `${why} (${word}: ${not})` : why;
}

const json = (s: ObjectSide) => (s.status === 'not-yet' ? { ...s, at: new Date(s.at).toISOString() } : s);

/** Kinds whose newly deleted objects exceed the gate. */
export function objectsOverGate(counts: readonly ObjectKindCount[], gate: NewSelectionGate | undefined): ObjectKindCount[] {
  return gate === undefined ? [] : counts.filter((c) => exceedsGate(gate, c.newlyDeleted, c.considered));
}

/** The objects' lines (before the pods' total line, which stays last) or tables. */
export function printObjectsDiff(d: ObjectsDiffRead, gate: NewSelectionGate | undefined, format: Format, io: Out): void {
  const over = new Set(objectsOverGate(d.counts, gate).map((c) => c.kind));
  if (format === 'json') {
    for (const c of d.changes)
      io.out(
        jsonLine({
          type: `object-${c.change}`,
          kind: c.kind,
          namespace: c.namespace,
          name: c.name,
          uid: c.uid,
          before: json(c.before),
          after: json(c.after),
          newlyDeleted: c.newlyDeleted,
        }),
      );
    for (const c of d.counts) io.out(jsonLine({ type: 'object-count', ...c, ...(gate ? { maxNew: gateText(gate), exceeded: over.has(c.kind) } : {}) }));
    return;
  }
  const selected = d.counts.reduce((n, c) => n + c.after, 0);
  io.out(
    d.changes.length
      ? `\n${table(
          ['CHANGE', 'KIND', 'OBJECT', 'BEFORE', 'AFTER', 'REASON'],
          d.changes.map((c) => [c.change, c.kind, `${c.namespace}/${c.name}`, cell(c.before), cell(c.after), reasonText(c.before, c.after)]),
        )}`
      : `\nobjects: no change: both policies select the same ${selected} objects\n`,
  );
  const n = (x: number) => String(x);
  io.out(
    `\n${table(
      ['KIND', 'LISTED', 'BEFORE', 'AFTER', 'NEW', 'RELEASED', 'CHANGED', 'NEWLY DELETED'],
      d.counts.map((c) => [c.kind, n(c.considered), n(c.before), n(c.after), n(c.new), n(c.released), n(c.changed), n(c.newlyDeleted)]),
    )}`,
  );
}

/** The stderr lines: one summary per kind, the gate's verdict, the kinds not served. */
export function objectsDiffSummary(d: ObjectsDiffRead, gate: NewSelectionGate | undefined, io: Out): void {
  const over = new Set(objectsOverGate(d.counts, gate).map((c) => c.kind));
  const kinds = d.counts.map(
    (c) =>
      `${c.kind} ${c.new} newly selected (${c.newlyDeleted} newly deleted), ${c.released} released, ${c.changed} changed; ` +
      `${c.before} selected before, ${c.after} after, of ${c.considered} listed${gate ? `; --max-new ${gateText(gate)}: ${over.has(c.kind) ? 'exceeded' : 'within'}` : ''}`,
  );
  for (const k of kinds) io.err(`objects: ${k}\n`);
  for (const kind of d.notServed) io.err(`objects: the cluster does not serve ${kind} (Kueue not installed?): its rules read nothing\n`);
  for (const u of d.unavailable ?? []) io.err(`ttl: ${u.kind} cannot be read here (${u.why}): its rules go on with the other kinds\n`);
}
