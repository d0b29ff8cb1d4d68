import { fileURLToPath } from 'node:url';
import { buildOracle } from '../../infra/local/descheduler/oracle-build.js';
import { judge, type Verdict } from './compare.js';
import { runOracle, type OracleCase } from './oracle.js';
import { prepare, type Prepared } from './prepare.js';
import { RULES, type RuleName } from './rules.js';

// Runs kube-tidy's pure core and the real descheduler over generated cases and tallies the
// result. `npm run conformance [-- --cases N --from SEED --no-raw]` prints the figures (and,
// unless --no-raw, how often each exclusion changed the outcome); the CI test
// (conformance.test.ts) runs a fixed set of seeds through the same function.

export interface Summary {
  cases: number;
  agree: number;
  /** Identical plans (pods, strategies, order) with no rule needed. */
  exact: number;
  /** Cases each named rule was applied in. */
  byRule: Record<RuleName, number>;
  /** Pods taken out of judgement, per exclusion rule. */
  podsExcluded: Partial<Record<RuleName, number>>;
  /** Cases both sides refused the policy. */
  bothRefused: number;
  /** Cases in which the descheduler evicted at least one pod, and pods it evicted: the test is not vacuous. */
  nonEmpty: number;
  podsEvicted: number;
  oracleRetries: number;
  failures: { seed: number; detail: string }[];
  /** With `raw`: cases that agree with no exclusion rule at all, and per rule the cases it turned into agreement. */
  rawAgree?: number;
  mattered?: Partial<Record<RuleName, number>>;
  ms: number;
}

export async function conformance(seeds: readonly number[], opts: { batch?: number; workers?: number; raw?: boolean } = {}): Promise<Summary> {
  const started = Date.now();
  const bin = buildOracle();
  const s: Summary = {
    cases: 0,
    agree: 0,
    exact: 0,
    bothRefused: 0,
    nonEmpty: 0,
    podsEvicted: 0,
    oracleRetries: 0,
    failures: [],
    ms: 0,
    podsExcluded: {},
    byRule: Object.fromEntries(Object.keys(RULES).map((r) => [r, 0])) as Record<RuleName, number>,
  };
  const batch = opts.batch ?? 500;
  for (let i = 0; i < seeds.length; i += batch) {
    const prepared = seeds.slice(i, i + batch).map((seed) => prepare(seed));
    const raws = opts.raw ? seeds.slice(i, i + batch).map((seed) => prepare(seed, { raw: true })) : [];
    const inputs: OracleCase[] = [...prepared, ...raws].flatMap((p) => (p.unlimited ? [p.oracle, p.unlimited] : [p.oracle]));
    const results = new Map((await runOracle(bin, inputs, opts.workers)).map((r) => [r.id, r]));
    const judged = (p: Prepared) => judge(p, results.get(p.oracle.id)!, p.unlimited ? results.get(p.unlimited.id) : undefined);
    for (const [j, p] of prepared.entries()) {
      const main = results.get(p.oracle.id)!;
      s.oracleRetries += main.retries;
      s.podsEvicted += main.evicted.length;
      if (main.evicted.length > 0) s.nonEmpty++;
      const v = judged(p);
      tally(s, p, v, !!(main.policyError ?? main.error));
      if (opts.raw) {
        const raw = judged(raws[j]!);
        s.rawAgree = (s.rawAgree ?? 0) + Number(raw.agree);
        s.mattered ??= {};
        if (v.agree && !raw.agree) for (const r of new Set(p.excluded.values())) s.mattered[r] = (s.mattered[r] ?? 0) + 1;
      }
    }
  }
  s.ms = Date.now() - started;
  return s;
}

function tally(s: Summary, p: Prepared, v: Verdict, oracleRefused: boolean): void {
  s.cases++;
  if (v.agree) s.agree++;
  if (v.exact && v.agree) s.exact++;
  if (v.agree && oracleRefused && 'refused' in p.kubeTidy) s.bothRefused++;
  for (const r of v.rules) s.byRule[r]++;
  for (const r of p.excluded.values()) s.podsExcluded[r] = (s.podsExcluded[r] ?? 0) + 1;
  if (!v.agree) s.failures.push({ seed: p.seed, detail: v.detail ?? '' });
}

export function report(s: Summary): string {
  const pct = (n: number) => `${((100 * n) / Math.max(1, s.cases)).toFixed(2)}%`;
  const lines = [
    `cases: ${s.cases} in ${(s.ms / 1000).toFixed(1)} s (oracle reruns for a crossed second: ${s.oracleRetries})`,
    `agreement outside the documented differences: ${s.agree}/${s.cases} (${pct(s.agree)})`,
    `identical plans, no rule needed: ${s.exact}/${s.cases} (${pct(s.exact)}); both refused the policy: ${s.bothRefused}`,
    `the descheduler evicted pods in ${s.nonEmpty} cases (${pct(s.nonEmpty)}), ${s.podsEvicted} pods in all`,
    ...(s.rawAgree === undefined ? [] : [`agreement with no exclusion rule at all: ${s.rawAgree}/${s.cases} (${pct(s.rawAgree)})`]),
    `named differences (cases applied in; pods excluded${s.mattered ? '; cases where excluding changed the outcome' : ''}):`,
    ...Object.entries(s.byRule).map(([r, n]) => {
      const pods = s.podsExcluded[r as RuleName];
      const mattered = s.mattered && pods ? `; changed ${s.mattered[r as RuleName] ?? 0}` : '';
      return `  ${r.padEnd(42)} ${String(n).padStart(6)} cases${pods ? `; ${pods} pods${mattered}` : ''}`;
    }),
  ];
  for (const f of s.failures.slice(0, 20)) lines.push(`DISAGREE seed ${f.seed}: ${f.detail}`);
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name: string, def: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? Number(process.argv[i + 1]) : def;
  };
  const n = arg('cases', 20_000);
  const from = arg('from', 1_000_000);
  const summary = await conformance(
    Array.from({ length: n }, (_, i) => from + i),
    { raw: !process.argv.includes('--no-raw') },
  );
  console.log(report(summary));
  process.exitCode = summary.agree === summary.cases ? 0 : 1;
}
