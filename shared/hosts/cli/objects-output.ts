// How `kube-tidy plan --kubeconfig` and `kube-tidy run` print cleanup beyond pods (the policy's
// kubeTidy.objects rules), after the pods and in the same format: JSON lines, each with a
// `type` (a pod's line has none, so a script reading pods reads them as before), or one table
// of every object a rule matched: what was done or would be, what is kept and why, and when
// the rest becomes eligible. A summary line goes to stderr. Pure: the pass's summary in, text out.
import type { ObjectKept, ObjectEligible, ObjectResult, ObjectsPassSummary } from '../../objects/index.js';
import { jsonLine, table, type Format } from './output.js';

type Out = { out: (s: string) => void; err: (s: string) => void };
/** A rule as the output names it: an objects rule or a ttl rule. */
type Named = { name: string; mode: 'report' | 'delete' };

/** What the API server answered for one object, in words (a plan's delete is "would delete"). */
export function objectResultText(r: Pick<ObjectResult, 'outcome' | 'dryRun' | 'message'>): string {
  const why = r.message ? `: ${r.message}` : '';
  switch (r.outcome) {
    case 'reported':
      return 'reported (report rule: nothing removed)';
    case 'deleted':
      return r.dryRun ? 'would delete' : 'deleted';
    case 'gone':
      return `already gone${why}`;
    case 'stale':
      return 'changed since read, left for next time';
    case 'deferred':
      // The brakes' words already begin with it.
      return r.message?.startsWith('deferred') ? r.message : `deferred${why}`;
    default:
      return `${r.outcome}${why}`;
  }
}

/** "in 40m", "in 2h5m": how far off an instant is, to the minute (eligibility is a minute's matter for a person). */
export function inText(ms: number): string {
  const minutes = Math.max(0, Math.ceil(ms / 60_000));
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  const parts = [d ? `${d}d` : '', h ? `${h}h` : '', m || (!d && !h) ? `${m}m` : ''];
  return `in ${parts.join('')}`;
}

/** A Workload's decision removes its owner: said, so nobody reads "Workload" and misses that a Job goes. */
const removes = (r: ObjectResult) => (r.decision.target.uid === r.decision.uid ? undefined : r.decision.target);

const modeOf = (rules: readonly Named[], name: string) => rules.find((r) => r.name === name)?.mode ?? 'report';

function jsonRows(s: ObjectsPassSummary, rules: readonly Named[]): Record<string, unknown>[] {
  const id = (o: { kind: string; namespace: string; name: string; uid: string; rule: string }) => ({
    kind: o.kind,
    namespace: o.namespace,
    name: o.name,
    uid: o.uid,
    rule: o.rule,
  });
  return [
    ...s.results.map((r) => {
      const target = removes(r);
      return {
        type: 'object',
        ...id(r.decision),
        mode: r.decision.mode,
        reason: r.decision.reason,
        outcome: r.outcome,
        dryRun: r.dryRun,
        ...(r.message ? { message: r.message } : {}),
        ...(target ? { removes: { apiVersion: target.apiVersion, kind: target.kind, name: target.name, uid: target.uid } } : {}),
      };
    }),
    ...s.kept.map((k: ObjectKept) => ({ type: 'object-kept', ...id(k), mode: modeOf(rules, k.rule), reason: k.reason })),
    ...s.eligible.map((e: ObjectEligible) => ({ type: 'object-eligible', ...id(e), mode: modeOf(rules, e.rule), at: new Date(e.at).toISOString() })),
  ];
}

function tableRows(s: ObjectsPassSummary, rules: readonly Named[], now: number): string[][] {
  const at = (o: { namespace: string; name: string }) => `${o.namespace}/${o.name}`;
  return [
    ...s.results.map((r) => {
      const d = r.decision;
      const target = removes(r);
      return [d.kind, at(d), d.rule, d.mode, objectResultText(r), `${d.reason}${target ? ` (removes its owner ${target.kind} ${target.name})` : ''}`];
    }),
    ...s.kept.map((k) => [k.kind, at(k), k.rule, modeOf(rules, k.rule), 'kept', k.reason]),
    ...s.eligible.map((e) => [e.kind, at(e), e.rule, modeOf(rules, e.rule), 'not yet', `eligible at ${new Date(e.at).toISOString()} (${inText(e.at - now)})`]),
  ];
}

/** The objects' section of a live plan or run; nothing when the policy has no object rules (the output is as it was). */
export function printObjects(s: ObjectsPassSummary, rules: readonly Named[], format: Format, now: number, io: Out): void {
  if (s.rules === 0) return;
  if (format === 'json') {
    for (const row of jsonRows(s, rules)) io.out(jsonLine(row));
  } else {
    const rows = tableRows(s, rules, now);
    io.out(
      rows.length
        ? `\n${table(['KIND', 'OBJECT', 'RULE', 'MODE', 'RESULT', 'REASON'], rows)}`
        : `\nnothing to do: the ${s.rules} kubeTidy.objects and ttl rules match no object\n`,
    );
  }
  io.err(`${objectsSummary(s)}\n`);
  for (const kind of s.notServed) io.err(`objects: the cluster does not serve ${kind} (Kueue not installed?): its rules read nothing\n`);
  for (const u of s.unavailable ?? []) io.err(`ttl: ${u.kind} cannot be read here (${u.why}): its rules go on with the other kinds\n`);
}

/** The stderr line: counts by outcome, as the pods' summary says them. */
export function objectsSummary(s: ObjectsPassSummary): string {
  const dryRun = s.results.some((r) => r.dryRun);
  const outcomes = new Map<string, number>();
  for (const r of s.results) outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
  const counts = [...outcomes].map(([k, n]) => `${n} ${dryRun && k === 'deleted' ? 'would be deleted' : k}`);
  return (
    `objects: ${s.rules} rules, ${s.considered} objects listed: ${s.results.length} selected${counts.length ? ` (${counts.join(', ')})` : ''}, ` +
    `${s.kept.length} kept, ${s.eligible.length} not yet eligible`
  );
}
