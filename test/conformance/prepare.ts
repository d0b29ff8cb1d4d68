import type { Pod } from '../../shared/model/objects.js';
import { decide } from '../../shared/selection/decide.js';
import type { Plan } from '../../shared/selection/decision.js';
import { loadPolicyText } from '../../shared/policy/load.js';
import type { Policy } from '../../shared/policy/policy.js';
import { cluster, type Cluster } from './generate-cluster.js';
import { policy as generatePolicy } from './generate-policy.js';
import type { OracleCase } from './oracle.js';
import { Random } from './random.js';
import { ANNOTATION_EVICT, exclusionFor, oraclePolicy, PROTECTED_NAMESPACES, withoutUnknownTopLevel, type RuleName } from './rules.js';

// One case, from its seed: the generated policy and cluster, what kube-tidy's pure core
// decides over it, and the input(s) the oracle gets, with the named rules applied.

type Obj = Record<string, unknown>;

export interface Prepared {
  id: string;
  seed: number;
  now: number;
  policy: Obj;
  cluster: Cluster;
  /** Pods taken out of judgement on both sides, and by which rule (key namespace/name). */
  excluded: Map<string, RuleName>;
  /** Policy-level rules applied (rewrites). */
  policyRules: RuleName[];
  kubeTidy: { refused: string } | { plan: Plan; policy: Policy };
  /** The case as the descheduler gets it; `unlimited` is the same without eviction limits. */
  oracle: OracleCase;
  unlimited?: OracleCase;
}

export const key = (o: { metadata?: { namespace?: string; name?: string }; namespace?: string; name?: string }): string =>
  o.metadata ? `${o.metadata.namespace}/${o.metadata.name}` : `${o.namespace}/${o.name}`;

// A fixed base keeps cases reproducible; each seed moves it by whole seconds.
const BASE = Date.parse('2026-05-01T12:00:00Z');

/**
 * `raw`: no exclusion rule (every pod judged on both sides, the oracle's pods unmodified),
 * only the policy rewrites without which one side would not run at all: to count how often
 * each documented difference changes the outcome.
 */
export function prepare(seed: number, opts: { raw?: boolean } = {}): Prepared {
  const r = new Random(seed);
  const now = BASE + 1000 * r.int(0, 86400 * 30);
  const policy = generatePolicy(r);
  const c = cluster(r, now);
  const excluded = new Map<string, RuleName>();
  for (const p of c.pods) {
    const rule = opts.raw ? undefined : exclusionFor(p, policy, c);
    if (rule) excluded.set(key(p), rule);
  }
  const policyRules: RuleName[] = [];

  // kube-tidy: the policy as written, or without unknown top-level fields if that alone is refused.
  let kubeTidy: Prepared['kubeTidy'];
  const loaded = tryLoad(policy);
  const stripped = withoutUnknownTopLevel(policy);
  const loadedStripped = 'refused' in loaded && stripped.stripped.length ? tryLoad(stripped.policy) : undefined;
  const use = loadedStripped && !('refused' in loadedStripped) ? loadedStripped : loaded;
  if (use === loadedStripped) policyRules.push('unknown-top-level-field');
  if ('refused' in use) kubeTidy = use;
  else {
    const judged = c.pods.filter((p) => !excluded.has(key(p)));
    const snapshot = {
      pods: judged,
      contextPods: c.pods,
      nodes: c.nodes,
      namespaces: c.namespaces,
      priorityClasses: c.priorityClasses,
      pdbs: c.pdbs,
      // As shared/runtime/context.ts builds it from the PVC list.
      pvcStorageClasses: new Map(c.pvcs.map((v) => [`${v.namespace}/${v.name}`, v.storageClassName ?? ''])),
    };
    kubeTidy = { plan: decide(use.policy, snapshot, now, { protectedNamespaces: PROTECTED_NAMESPACES }), policy: use.policy };
  }

  const rewritten = oraclePolicy(policy);
  policyRules.push(...rewritten.applied);
  const pods = c.pods.map((p) => (excluded.has(key(p)) ? unjudgeable(p, now) : p));
  const id = `seed-${seed}${opts.raw ? '-raw' : ''}`;
  const oracle: OracleCase = {
    id,
    policy: JSON.stringify(rewritten.policy),
    now: new Date(now).toISOString().replace('.000Z', 'Z'),
    pods,
    nodes: c.nodes,
    cluster: c,
  };
  const limited = ['maxNoOfPodsToEvictPerNode', 'maxNoOfPodsToEvictPerNamespace', 'maxNoOfPodsToEvictTotal'].some((k) => policy[k] !== undefined);
  let unlimited: OracleCase | undefined;
  if (limited) {
    const { maxNoOfPodsToEvictPerNode: _n, maxNoOfPodsToEvictPerNamespace: _ns, maxNoOfPodsToEvictTotal: _t, ...rest } = rewritten.policy;
    unlimited = { ...oracle, id: `${id}-unlimited`, policy: JSON.stringify(rest) };
  }
  return { id, seed, now, policy, cluster: c, excluded, policyRules, kubeTidy, oracle, unlimited };
}

function tryLoad(policy: Obj): { refused: string } | { policy: Policy } {
  try {
    return { policy: loadPolicyText(JSON.stringify(policy)).policy };
  } catch (e) {
    return { refused: (e as Error).message };
  }
}

/** The pod as the descheduler must see it to leave it alone: terminating, without the evict annotation. */
function unjudgeable(pod: Pod, now: number): Pod {
  const copy = structuredClone(pod);
  copy.metadata.deletionTimestamp ??= new Date(now).toISOString().replace('.000Z', 'Z');
  if (copy.metadata.annotations) delete copy.metadata.annotations[ANNOTATION_EVICT];
  return copy;
}
