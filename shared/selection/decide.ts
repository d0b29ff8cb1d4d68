import { isTerminal } from '../model/pod.js';
import { compileGate } from '../evictor/gate.js';
import { EvictionLimiter, type LimitHit } from '../evictor/limits.js';
import type { Policy, Profile, StrategyConfig } from '../policy/policy.js';
import { STRATEGIES } from '../strategies/registry.js';
import type { PodMatcher } from '../strategies/lifecycle/matcher.js';
import type { Decision, Kept, Plan } from './decision.js';
import { eligibleAt } from './eligible.js';
import { RetentionIndex, ruleFor } from './retention.js';
import type { SnapshotIndex } from '../evictor/snapshot-index.js';
import { indexSnapshot, type Snapshot } from './snapshot.js';

export interface DecideOptions {
  /** Never touched, whatever the policy says. Default: kube-system. */
  protectedNamespaces?: readonly string[];
  /**
   * The snapshot's index, when the caller built it once for many calls: the pages of a sweep
   * share their context (every pod, nodes, budgets), and re-indexing 100,000 context pods per
   * page was most of a sweep's CPU with minReplicas or nodeFit.
   */
  index?: SnapshotIndex;
  /** Carries limits and already-decided pods across calls: the pages of one sweep. */
  session?: DecideSession;
  /**
   * Also say, for each pod not taken, when time alone would bring it in (Plan.eligible): the
   * event path answers with it. Off for sweeps, where it would cost a pass over every pod.
   */
  eligibleAt?: boolean;
  /**
   * kubeTidy.retention (selection/retention.ts): the finished pods of the judged pods' owners, when
   * the caller read more of them than the snapshot's pods (the event path reads an owner's
   * other pods); the judged pods are added to it. Absent: the snapshot's pods (and context
   * pods) are all there is. 'defer': not applied here, because the owners' other pods are on
   * pages still to come (a pass): a run with a rule hands on every pod it selects, without
   * taking it from later runs, and AcrossPages applies the rule when every page is seen.
   */
  retention?: RetentionIndex | 'defer';
}

/** What one invocation remembers between decide calls over parts of its snapshot. */
export interface DecideSession {
  limiter: EvictionLimiter;
  decided: Set<string>;
}

export function newSession(policy: Policy): DecideSession {
  return { limiter: new EvictionLimiter(policy.limits), decided: new Set() };
}

export const DEFAULT_PROTECTED_NAMESPACES: readonly string[] = ['kube-system'];

export const LIMIT_REASON: Record<LimitHit | 'none', string | undefined> = {
  none: undefined,
  node: 'limit maxNoOfPodsToEvictPerNode reached',
  namespace: 'limit maxNoOfPodsToEvictPerNamespace reached',
  total: 'limit maxNoOfPodsToEvictTotal reached',
};

/**
 * The pure core: policy, snapshot and `now` in, an ordered plan out. Profiles run in
 * order, strategies in the order each profile enables them, each strategy's pods in its
 * own order (oldest first); a pod is decided at most once; limits span the whole call.
 * kubeTidy.retention (selection/retention.ts) keeps each owner's newest pods before the limits.
 */
export function decide(policy: Policy, snapshot: Snapshot, now: number, options: DecideOptions = {}): Plan {
  const index = options.index ?? indexSnapshot(snapshot);
  const pods = snapshot.pods;
  const protectedNamespaces = options.protectedNamespaces ?? DEFAULT_PROTECTED_NAMESPACES;
  const kept: Kept[] = [];
  const runs = matchRuns(compileRuns(policy), pods, now, kept);
  const gates = new Map(policy.profiles.map((p) => [p, compileGate(p.evictor, index, { protectedNamespaces, nodeSelector: policy.nodeSelector })]));
  const taking: Taking = {
    pods,
    now,
    // Within one call a pod is known by its position (no hashing on the hot path); the uid set
    // only matters across calls, for a pod that shows up again on a later page.
    taken: new Uint8Array(pods.length),
    session: options.session ?? newSession(policy),
    acrossCalls: options.session !== undefined,
    rules: policy.retention?.length ? policy.retention : undefined,
    defer: options.retention === 'defer',
    retained: undefined,
    decisions: [],
    order: { run: [], key: [] },
    kept,
  };
  if (taking.rules && !taking.defer) taking.retained = retentionFor(options.retention, snapshot);
  for (const [run, matched] of runs.entries()) takeRun(taking, run, matched, gates.get(matched.profile)!);
  const plan: Plan = { decisions: taking.decisions, order: taking.order, kept, evaluated: snapshot.pods.length };
  if (options.eligibleAt) plan.eligible = eligibleOf(pods, taking.taken, now, runs, gates);
  return plan;
}

type Run = ReturnType<typeof compileRuns>[number];
/** A run with the positions of the pods its matcher selected, and their sort keys. */
type MatchedRun = Run & { picked: number[]; keys: number[] };
type Gate = ReturnType<typeof compileGate>;

/** What one decide call carries from run to run: what is taken, and the plan being written. */
interface Taking {
  readonly pods: Snapshot['pods'];
  readonly now: number;
  readonly taken: Uint8Array;
  readonly session: DecideSession;
  readonly acrossCalls: boolean;
  readonly rules: Policy['retention'] | undefined;
  readonly defer: boolean;
  retained: RetentionIndex | undefined;
  readonly decisions: Decision[];
  readonly order: Plan['order'];
  readonly kept: Kept[];
}

/**
 * Match every strategy in one pass over the pods: each pod object is brought into the CPU
 * cache once, not once per strategy, which is most of the cost over 100,000 pods.
 */
function matchRuns(compiled: Run[], pods: Snapshot['pods'], now: number, kept: Kept[]): MatchedRun[] {
  const runs = compiled.map((run) => ({ ...run, picked: [] as number[], keys: [] as number[] }));
  for (let i = 0; i < pods.length; i++) {
    const pod = pods[i]!;
    for (const run of runs) {
      if (!run.matcher.matches(pod, now)) {
        // A pod the strategy addresses but refuses (PodTTL: a TTL it cannot read) is reported, not silently passed over.
        const refused = run.matcher.keptBecause?.(pod, now);
        if (refused !== undefined) {
          const meta = pod.metadata;
          kept.push({
            namespace: meta.namespace ?? '',
            name: meta.name ?? '',
            uid: meta.uid ?? '',
            profile: run.profile.name,
            strategy: run.strategy.name,
            reason: refused,
          });
        }
        continue;
      }
      run.picked.push(i);
      run.keys.push(run.matcher.sortKey(pod));
    }
  }
  return runs;
}

/** The owners' finished pods retention counts: the caller's index, else the snapshot's pods and context pods. */
function retentionFor(given: DecideOptions['retention'], snapshot: Snapshot): RetentionIndex {
  const retained = given instanceof RetentionIndex ? given : new RetentionIndex();
  if (!(given instanceof RetentionIndex)) for (const p of snapshot.contextPods ?? []) retained.see(p);
  for (const p of snapshot.pods) retained.see(p);
  return retained;
}

/** One strategy's selected pods in its order, each through the gate, retention and the limits. */
function takeRun(t: Taking, run: number, { profile, strategy, matcher, picked, keys }: MatchedRun, gate: Gate): void {
  const { pods, now, taken, acrossCalls, retained } = t;
  const { limiter, decided } = t.session;
  const rule = t.rules && ruleFor(t.rules, profile.name, strategy.name);
  // Deferred: selected now, kept or not once every page is seen; a later run may take it meanwhile.
  const pending = t.defer && rule !== undefined;
  for (const o of inOrder(keys)) {
    const i = picked[o]!;
    if (taken[i]) continue;
    const pod = pods[i]!;
    const meta = pod.metadata;
    const uid = meta.uid ?? '';
    if (acrossCalls && decided.has(uid)) continue;
    const action = isTerminal(pod) ? 'delete' : 'evict';
    // Retention before the limits: a pod it keeps spends none of them.
    const why = gate(pod, action, now) ?? retained?.keeps(rule, uid) ?? LIMIT_REASON[limiter.take(meta.namespace, pod.spec?.nodeName) ?? 'none'];
    if (why !== undefined) {
      t.kept.push({ namespace: meta.namespace ?? '', name: meta.name ?? '', uid, profile: profile.name, strategy: strategy.name, reason: why });
      continue;
    }
    if (!pending) {
      taken[i] = 1;
      if (acrossCalls) decided.add(uid);
    }
    t.decisions.push({
      namespace: meta.namespace ?? '',
      name: meta.name ?? '',
      uid,
      resourceVersion: meta.resourceVersion,
      node: pod.spec?.nodeName,
      profile: profile.name,
      strategy: strategy.name,
      action,
      reason: `${strategy.name}: ${matcher.explain(pod, now)}`,
    });
    t.order.run.push(run);
    t.order.key.push(keys[o]!);
  }
}

/** For each pod not taken, when time alone would bring it in (Plan.eligible). */
function eligibleOf(pods: Snapshot['pods'], taken: Uint8Array, now: number, runs: MatchedRun[], gates: Map<Profile, Gate>): NonNullable<Plan['eligible']> {
  const eligible: NonNullable<Plan['eligible']> = [];
  for (let i = 0; i < pods.length; i++) {
    if (taken[i]) continue;
    const e = eligibleAt(pods[i]!, now, runs, (p) => gates.get(p)!);
    if (e) eligible.push(e);
  }
  return eligible;
}

/** Every enabled strategy with its compiled matcher, in the order decide runs them. */
function compileRuns(policy: Policy): { profile: Profile; strategy: StrategyConfig; matcher: PodMatcher }[] {
  return policy.profiles.flatMap((profile) =>
    profile.strategies.map((strategy) => ({
      profile,
      strategy,
      matcher: (STRATEGIES[strategy.name] as { compile(args: unknown): PodMatcher }).compile(strategy.args),
    })),
  );
}

/** Sort keys smaller first, unknown times (NaN) last, then by position: the order decide acts in. */
export function byKey(ka: number, kb: number, a: number, b: number): number {
  const an = ka !== ka;
  const bn = kb !== kb;
  return an || bn ? Number(an) - Number(bn) : ka - kb || a - b;
}

/** Indexes into a strategy's selected pods, in its order (its sort keys, smaller first). */
function inOrder(keys: readonly number[]): number[] {
  // Sort positions rather than wrapper objects: no garbage per selected pod. Stable; unknown
  // times (NaN) go last rather than scrambling the order.
  return Array.from(keys.keys()).sort((a, b) => byKey(keys[a]!, keys[b]!, a, b));
}
