import type { OracleEviction, OracleResult } from './oracle.js';
import { key, type Prepared } from './prepare.js';
import { orderRuleFor, thresholdJudges, unknownPriorityClassProfiles, type RuleName } from './rules.js';

// Compares kube-tidy's plan with what the real descheduler evicted, in the same case at the
// same instant: the same pods, each by the same profile and strategy, in the same order —
// except where a named rule says the descheduler promises no order.

export interface Verdict {
  agree: boolean;
  /** The plans are identical, pod for pod and in order, with no order rule needed. */
  exact: boolean;
  /** Named rules this case needed (exclusions that took a pod out, rewrites, order rules). */
  rules: RuleName[];
  detail?: string;
}

type Step = { key: string; profile: string; strategy: string };

const fromOracle = (e: OracleEviction): Step => ({ key: key(e), profile: e.profile, strategy: e.strategy });
const same = (a: Step, b: Step) => a.key === b.key && a.profile === b.profile && a.strategy === b.strategy;
const show = (steps: readonly Step[]) => steps.map((s) => `${s.key}@${s.profile}/${s.strategy}`).join(', ') || '(none)';

export function judge(p: Prepared, main: OracleResult, unlimited?: OracleResult): Verdict {
  const rules = new Set<RuleName>([...p.policyRules, ...p.excluded.values()]);
  const verdict = (agree: boolean, exact: boolean, detail?: string): Verdict => ({ agree, exact, rules: [...rules], detail });
  const oracleRefused = main.policyError ?? main.error;
  if ('refused' in p.kubeTidy) {
    return oracleRefused ? verdict(true, true) : verdict(false, false, `kube-tidy refuses the policy, the descheduler runs it: ${p.kubeTidy.refused}`);
  }
  if (oracleRefused) {
    const unknown = unknownPriorityClassProfiles(
      p.policy,
      p.cluster.priorityClasses.map((c) => c.metadata.name ?? ''),
    );
    if (unknown.length > 0 && main.policyError?.includes('priority class')) {
      rules.add('unknown-priority-class');
      const pods = new Map(p.cluster.pods.map((x) => [key(x), x]));
      const wrong = p.kubeTidy.plan.decisions.find(
        (d) => unknown.includes(d.profile) && thresholdJudges(p.policy, d.profile, pods.get(`${d.namespace}/${d.name}`)!),
      );
      return wrong ? verdict(false, false, `kube-tidy takes ${wrong.namespace}/${wrong.name} past an unknown priority class`) : verdict(true, false);
    }
    return verdict(false, false, `the descheduler refuses the policy, kube-tidy runs it: ${oracleRefused}`);
  }

  const { plan } = p.kubeTidy;
  const k: Step[] = plan.decisions.map((d) => ({ key: `${d.namespace}/${d.name}`, profile: d.profile, strategy: d.strategy }));
  const o: Step[] = main.evicted.map(fromOracle);
  if (k.length === o.length && k.every((s, i) => same(s, o[i]!))) return verdict(true, true);

  const sameSets = k.length === o.length && k.every((s) => o.some((x) => same(s, x)));
  if (sameSets) {
    const why = orderDifference(p, k, o);
    if (why.ok) {
      for (const r of why.rules) rules.add(r);
      return verdict(true, false);
    }
    return verdict(false, false, `same pods, order differs (${why.detail}): kube-tidy ${show(k)}; descheduler ${show(o)}`);
  }

  // Different pods under limits: where the order is not promised, the descheduler's order
  // decides which pods fit the limits. Check kube-tidy's choice against its unlimited selection.
  const orderRules = unorderedRules(p);
  if (unlimited && orderRules.length > 0) {
    const why = saturates(p, k, o, unlimited.evicted.map(fromOracle));
    if (why === undefined) {
      for (const r of orderRules) rules.add(r);
      return verdict(true, false);
    }
    return verdict(false, false, `under limits: ${why}; kube-tidy ${show(k)}; descheduler ${show(o)}`);
  }
  return verdict(false, false, `kube-tidy ${show(k)}; descheduler ${show(o)}`);
}

/** The order rules that apply to this policy's strategy runs, and ties between creation times. */
function unorderedRules(p: Prepared): RuleName[] {
  const out = new Set<RuleName>();
  if ('refused' in p.kubeTidy) return [];
  for (const profile of p.kubeTidy.policy.profiles) {
    for (const s of profile.strategies) {
      const r = orderRuleFor(s.name, s.args as Record<string, unknown>);
      if (r) out.add(r);
    }
  }
  const times = p.cluster.pods.filter((x) => !p.excluded.has(key(x))).map((x) => String(x.metadata.creationTimestamp));
  if (new Set(times).size < times.length) out.add('equal-creation-timestamps');
  return [...out];
}

function segments(steps: readonly Step[]): { id: string; strategy: string; profile: string; keys: string[] }[] {
  const out: { id: string; strategy: string; profile: string; keys: string[] }[] = [];
  for (const s of steps) {
    const id = `${s.profile}/${s.strategy}`;
    if (out.at(-1)?.id !== id) out.push({ id, strategy: s.strategy, profile: s.profile, keys: [] });
    out.at(-1)!.keys.push(s.key);
  }
  return out;
}

/** Same pods by the same strategies: is every difference in order one the descheduler does not promise? */
function orderDifference(p: Prepared, k: Step[], o: Step[]): { ok: true; rules: RuleName[] } | { ok: false; detail: string } {
  const ks = segments(k);
  const os = segments(o);
  if (ks.map((s) => s.id).join() !== os.map((s) => s.id).join()) return { ok: false, detail: 'strategy runs in another order' };
  const created = new Map(p.cluster.pods.map((x) => [key(x), String(x.metadata.creationTimestamp)]));
  const used = new Set<RuleName>();
  const policy = 'refused' in p.kubeTidy ? undefined : p.kubeTidy.policy;
  for (const [i, seg] of ks.entries()) {
    const other = os[i]!;
    if (seg.keys.join() === other.keys.join()) continue;
    const args = policy?.profiles.find((x) => x.name === seg.profile)?.strategies.find((s) => s.name === seg.strategy)?.args;
    const rule = orderRuleFor(seg.strategy, args as Record<string, unknown>);
    if (rule) {
      used.add(rule);
      continue;
    }
    // PodLifeTime: oldest first in both; only pods created in the same second may swap.
    if (seg.keys.map((x) => created.get(x)).join() === other.keys.map((x) => created.get(x)).join()) {
      used.add('equal-creation-timestamps');
      continue;
    }
    return { ok: false, detail: `${seg.id} not oldest first in the same way` };
  }
  return { ok: true, rules: [...used] };
}

/**
 * kube-tidy's choice under limits, against the descheduler's selection without limits (u):
 * both choose among u, kube-tidy keeps within the limits, and every pod of u it leaves out
 * was blocked by a limit that its own choice had filled.
 */
function saturates(p: Prepared, k: Step[], o: Step[], u: Step[]): string | undefined {
  const eligible = new Set(u.map((s) => s.key));
  const outside = k.find((s) => !eligible.has(s.key)) ?? o.find((s) => !eligible.has(s.key));
  if (outside) return `${outside.key} is selected but not eligible without limits`;
  const node = new Map(p.cluster.pods.map((x) => [key(x), x.spec?.nodeName]));
  const limits = p.policy as { maxNoOfPodsToEvictPerNode?: number; maxNoOfPodsToEvictPerNamespace?: number; maxNoOfPodsToEvictTotal?: number };
  const perNode = new Map<string, number>();
  const perNs = new Map<string, number>();
  for (const s of k) {
    const n = node.get(s.key) ?? '';
    const ns = s.key.split('/')[0]!;
    perNode.set(n, (perNode.get(n) ?? 0) + 1);
    perNs.set(ns, (perNs.get(ns) ?? 0) + 1);
  }
  const full = (s: Step) =>
    (limits.maxNoOfPodsToEvictTotal !== undefined && k.length >= limits.maxNoOfPodsToEvictTotal) ||
    (limits.maxNoOfPodsToEvictPerNode !== undefined && (perNode.get(node.get(s.key) ?? '') ?? 0) >= limits.maxNoOfPodsToEvictPerNode) ||
    (limits.maxNoOfPodsToEvictPerNamespace !== undefined && (perNs.get(s.key.split('/')[0]!) ?? 0) >= limits.maxNoOfPodsToEvictPerNamespace);
  const taken = new Set(k.map((s) => s.key));
  const left = u.find((s) => !taken.has(s.key) && !full(s));
  if (left) return `${left.key} is eligible and no limit is full, yet kube-tidy leaves it`;
  if (limits.maxNoOfPodsToEvictTotal !== undefined && k.length > limits.maxNoOfPodsToEvictTotal) return 'kube-tidy exceeds maxNoOfPodsToEvictTotal';
  for (const [n, c] of perNode)
    if (limits.maxNoOfPodsToEvictPerNode !== undefined && c > limits.maxNoOfPodsToEvictPerNode) return `kube-tidy exceeds the node limit on ${n}`;
  for (const [ns, c] of perNs)
    if (limits.maxNoOfPodsToEvictPerNamespace !== undefined && c > limits.maxNoOfPodsToEvictPerNamespace)
      return `kube-tidy exceeds the namespace limit in ${ns}`;
  return undefined;
}
