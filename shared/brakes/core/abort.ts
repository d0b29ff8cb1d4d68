// The percentage abort, pure: a pass that would remove more than P% of the pods it considered
// in one scope (the cluster, a namespace, an owner) writes nothing from the removal that
// would cross the line on, and the scope stays stopped (ledger.ts Trip) until the rule is
// raised or a person resumes it. A pass knows its whole plan before it acts (the policy's
// order is over every page), so the cut is exact, not a race.
import type { AbortRule, BrakeScope } from '../../policy/brakes-schema.js';
import type { Trip } from './ledger.js';
import { scopeKey, type Subject } from './meters.js';

/** `scope|key` of each scope the rules judge `s` in (what a pass counts as considered). */
export function consideredIn(rules: readonly AbortRule[], s: Subject): string[] {
  const out: string[] = [];
  for (const r of rules) {
    const key = scopeKey(r.scope, s);
    if (key !== undefined) out.push(`${r.scope}|${key}`);
  }
  return out;
}

export interface Cut {
  /** Removals to carry out: the plan's first `keep`; the rest are not written. */
  keep: number;
  /** The scope that stopped it, with what the pass would have done there. */
  trip?: Omit<Trip, 'at' | 'pass'>;
  /** In words, for the answer, the log and the Event. */
  why?: string;
}

/** Where the abort cuts a plan of removals (in the order they would be written). */
export function abortCut(plan: readonly Subject[], considered: ReadonlyMap<string, number>, rules: readonly AbortRule[]): Cut {
  if (rules.length === 0) return { keep: plan.length };
  const counts = new Map<string, number>();
  for (let i = 0; i < plan.length; i++) {
    for (const r of rules) {
      const key = scopeKey(r.scope, plan[i]!);
      if (key === undefined) continue;
      const id = `${r.scope}|${key}`;
      const pods = considered.get(id) ?? 0;
      const n = (counts.get(id) ?? 0) + 1;
      counts.set(id, n);
      if (pods < r.minPods) continue;
      if (n * 100 > r.percent * pods) {
        const selected = plan.filter((s) => scopeKey(r.scope, s) === key).length;
        return {
          keep: i,
          trip: { scope: r.scope, key, percent: r.percent, selected, considered: pods },
          why: abortWords(r.scope, key, selected, pods, r.percent),
        };
      }
    }
  }
  return { keep: plan.length };
}

export function abortWords(scope: BrakeScope, key: string, selected: number, considered: number, percent: number): string {
  const where = scope === 'cluster' ? 'the cluster' : `${scope} ${key}`;
  return `kubeTidy.brakes.abort: the pass would remove ${selected} of the ${considered} pods it considered in ${where} (${Math.round((selected * 1000) / Math.max(considered, 1)) / 10}%), more than ${percent}%`;
}
