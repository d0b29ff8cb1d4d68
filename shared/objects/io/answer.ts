// What a target says of an objects pass, beside the pods': counts per outcome, then every
// result as decided (kind, namespace, name, rule, mode, outcome, why), what was kept and why,
// and what time alone brings in next. Pure: the pass's summary in, the answer's section out.
import type { ObjectsPassSummary } from './pass.js';

export interface ObjectsAnswer {
  rules: number;
  considered: number;
  /** Results by outcome: reported, deleted, deferred, kept (on the re-read), stale, gone, failed, refused. */
  outcomes: Record<string, number>;
  results: {
    kind: string;
    namespace: string;
    name: string;
    rule: string;
    mode: string;
    outcome: string;
    reason: string;
    /** What goes when it is removed: a Workload's owner. */
    target?: string;
    message?: string;
  }[];
  kept: { kind: string; namespace: string; name: string; rule: string; reason: string }[];
  eligible: { kind: string; namespace: string; name: string; rule: string; at: string }[];
  notServed?: string[];
  /** Kinds a ttl rule names that could not be read here, and why. */
  unavailable?: { kind: string; why: string }[];
  /** Decisions the time budget left for the next pass. */
  notStarted?: number;
  /** The sweep wrote no Reports: the OpenReports CRD is not installed. */
  reportsNotServed?: boolean;
}

/** At most this many results, kept and eligible each, in an answer (the counts are whole). */
const SHOWN = 500;

export function objectsAnswer(s: ObjectsPassSummary): ObjectsAnswer {
  const outcomes: Record<string, number> = {};
  for (const r of s.results) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
  return {
    rules: s.rules,
    considered: s.considered,
    outcomes,
    results: s.results.slice(0, SHOWN).map(({ decision: d, outcome, message }) => ({
      kind: d.kind,
      namespace: d.namespace,
      name: d.name,
      rule: d.rule,
      mode: d.mode,
      outcome,
      reason: d.reason,
      ...(d.target.uid !== d.uid ? { target: `${d.target.kind}/${d.target.name}` } : {}),
      ...(message ? { message } : {}),
    })),
    kept: s.kept.slice(0, SHOWN).map(({ kind, namespace, name, rule, reason }) => ({ kind, namespace, name, rule, reason })),
    eligible: s.eligible.slice(0, SHOWN).map(({ kind, namespace, name, rule, at }) => ({ kind, namespace, name, rule, at: new Date(at).toISOString() })),
    ...(s.notServed.length ? { notServed: s.notServed } : {}),
    ...(s.unavailable?.length ? { unavailable: s.unavailable } : {}),
    ...(s.notStarted ? { notStarted: s.notStarted } : {}),
  };
}
