import type { Pod } from '../model/kube.js';
import { isTerminal } from '../model/pod.js';
import { compileGate } from '../evictor/gate.js';
import { EvictionLimiter, type LimitHit } from '../evictor/limits.js';
import type { Policy } from '../policy/policy.js';
import { STRATEGIES } from '../strategies/registry.js';
import type { PodMatcher } from '../strategies/lifecycle/matcher.js';
import type { Decision, Kept, Plan } from './decision.js';
import { indexSnapshot, type Snapshot } from './snapshot.js';

export interface DecideOptions {
  /** Never touched, whatever the policy says. Default: kube-system. */
  protectedNamespaces?: readonly string[];
}

export const DEFAULT_PROTECTED_NAMESPACES: readonly string[] = ['kube-system'];

const LIMIT_REASON: Record<LimitHit, string> = {
  node: 'limit maxNoOfPodsToEvictPerNode reached',
  namespace: 'limit maxNoOfPodsToEvictPerNamespace reached',
  total: 'limit maxNoOfPodsToEvictTotal reached',
};

/**
 * The pure core: policy, snapshot and `now` in, an ordered plan out. Profiles run in
 * order, strategies in the order each profile enables them, each strategy's pods in its
 * own order (oldest first); a pod is decided at most once; limits span the whole call.
 */
export function decide(policy: Policy, snapshot: Snapshot, now: number, options: DecideOptions = {}): Plan {
  const index = indexSnapshot(snapshot);
  const limiter = new EvictionLimiter(policy.limits);
  const decided = new Set<string>();
  const decisions: Decision[] = [];
  const kept: Kept[] = [];
  const protectedNamespaces = options.protectedNamespaces ?? DEFAULT_PROTECTED_NAMESPACES;

  for (const profile of policy.profiles) {
    const gate = compileGate(profile.evictor, index, { protectedNamespaces, nodeSelector: policy.nodeSelector });
    for (const strategy of profile.strategies) {
      const definition = STRATEGIES[strategy.name] as { compile(args: unknown): PodMatcher };
      const matcher = definition.compile(strategy.args);
      const selected = select(snapshot.pods, matcher, now);
      for (const pod of selected) {
        const uid = pod.metadata.uid ?? '';
        if (decided.has(uid)) continue;
        const base = {
          namespace: pod.metadata.namespace ?? '',
          name: pod.metadata.name ?? '',
          uid,
          profile: profile.name,
          strategy: strategy.name,
        };
        const action = isTerminal(pod) ? 'delete' : 'evict';
        const protection = gate(pod, action, now);
        if (protection) {
          kept.push({ ...base, reason: protection });
          continue;
        }
        const hit = limiter.take(pod);
        if (hit) {
          kept.push({ ...base, reason: LIMIT_REASON[hit] });
          continue;
        }
        decided.add(uid);
        decisions.push({
          ...base,
          resourceVersion: pod.metadata.resourceVersion,
          node: pod.spec?.nodeName,
          action,
          reason: `${strategy.name}: ${matcher.explain(pod, now)}`,
        });
      }
    }
  }
  return { decisions, kept, evaluated: snapshot.pods.length };
}

function select(pods: readonly Pod[], matcher: PodMatcher, now: number): Pod[] {
  const keyed: { pod: Pod; key: number }[] = [];
  for (const pod of pods) if (matcher.matches(pod, now)) keyed.push({ pod, key: matcher.sortKey(pod) });
  // Stable sort; unknown times (NaN) go last rather than scrambling the order.
  keyed.sort((a, b) => {
    const an = Number.isNaN(a.key);
    const bn = Number.isNaN(b.key);
    return an || bn ? Number(an) - Number(bn) : a.key - b.key;
  });
  return keyed.map((k) => k.pod);
}
