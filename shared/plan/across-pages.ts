import type { Pod } from '../model/kube.js';
import { EvictionLimiter } from '../evictor/limits.js';
import type { Policy } from '../policy/policy.js';
import { byKey, compileRuns, LIMIT_REASON, newSession, type DecideSession } from './decide.js';
import type { Decision, Kept, Plan } from './decision.js';

// A pass reads the cluster a page at a time, but the descheduler's order and limits are
// over all pods at once: each strategy acts on the oldest (or most restarted) first, and
// maxNoOfPodsToEvict* keep the first in that order. So a pass decides every page without
// limits (the gate still applies), keeps the decisions (not the pods) with each one's sort
// key, and only then puts them in order and applies the limits: the same decisions, in the
// same order, as one decide over every page's pods. Memory grows with the pods selected,
// not the pods seen.

interface Entry {
  decision: Decision;
  key: number;
  seq: number;
}

export class AcrossPages {
  /** Give this to decide for every page: it remembers decided pods, and sets no limits. */
  readonly session: DecideSession;
  private readonly runs: ReturnType<typeof compileRuns>;
  private readonly entries: Entry[][];
  private readonly runOf = new Map<string, number>();
  private seq = 0;

  constructor(private readonly policy: Policy) {
    this.session = { ...newSession(policy), limiter: new EvictionLimiter({}) };
    this.runs = compileRuns(policy);
    this.entries = this.runs.map(() => []);
    this.runs.forEach((r, i) => this.runOf.set(runKey(r.profile.name, r.strategy.name), i));
  }

  /** One page's plan (decided with `session`), and the pods it was decided over. */
  add(plan: Plan, pods: readonly Pod[]): void {
    if (plan.decisions.length === 0) return;
    const byUid = new Map(pods.map((p) => [p.metadata.uid ?? '', p]));
    for (const decision of plan.decisions) {
      const run = this.runOf.get(runKey(decision.profile, decision.strategy))!;
      const key = this.runs[run]!.matcher.sortKey(byUid.get(decision.uid)!);
      this.entries[run]!.push({ decision, key, seq: this.seq++ });
    }
  }

  /** Every decision in the policy's order, limits applied; the ones a limit held back, as kept. */
  finish(): { decisions: Decision[]; kept: Kept[]; totalReached: boolean } {
    const limiter = new EvictionLimiter(this.policy.limits);
    const decisions: Decision[] = [];
    const kept: Kept[] = [];
    for (const run of this.entries) {
      run.sort((a, b) => byKey(a.key, b.key, a.seq, b.seq));
      for (const { decision: d } of run) {
        const hit = limiter.take({ metadata: { namespace: d.namespace }, spec: { nodeName: d.node } } as Pod);
        if (hit === undefined) decisions.push(d);
        else kept.push({ namespace: d.namespace, name: d.name, uid: d.uid, profile: d.profile, strategy: d.strategy, reason: LIMIT_REASON[hit]! });
      }
    }
    return { decisions, kept, totalReached: limiter.totalReached() };
  }
}

const runKey = (profile: string, strategy: string) => `${profile}\u0000${strategy}`;
