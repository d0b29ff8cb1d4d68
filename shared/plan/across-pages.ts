import { EvictionLimiter } from '../evictor/limits.js';
import type { Policy } from '../policy/policy.js';
import { byKey, LIMIT_REASON, newSession, type DecideSession } from './decide.js';
import type { Decision, Kept, Plan } from './decision.js';

// A pass reads the cluster a page at a time, but the descheduler's order and limits are
// over all pods at once: each strategy acts on the oldest (or most restarted) first, and
// maxNoOfPodsToEvict* keep the first in that order. So a pass decides every page without
// limits (the gate still applies), keeps the decisions (not the pods) with where each stands
// in the policy's order (Plan.order), and only then puts them in order and applies the
// limits: the same decisions, in the same order, as one decide over every page's pods.
// Memory grows with the pods selected, not the pods seen.

interface Entry {
  decision: Decision;
  key: number;
  seq: number;
}

export class AcrossPages {
  /** Give this to decide for every page: it remembers decided pods, and sets no limits. */
  readonly session: DecideSession;
  /** Per strategy run, in the policy's order. */
  private readonly runs: Entry[][] = [];
  private seq = 0;

  constructor(private readonly policy: Policy) {
    this.session = { ...newSession(policy), limiter: new EvictionLimiter({}) };
  }

  /** One page's plan, decided with `session`. */
  add(plan: Plan): void {
    plan.decisions.forEach((decision, i) => {
      (this.runs[plan.order.run[i]!] ??= []).push({ decision, key: plan.order.key[i]!, seq: this.seq++ });
    });
  }

  /** Every decision in the policy's order, limits applied; the ones a limit held back, as kept. */
  finish(): { decisions: Decision[]; kept: Kept[]; totalReached: boolean } {
    const limiter = new EvictionLimiter(this.policy.limits);
    const decisions: Decision[] = [];
    const kept: Kept[] = [];
    for (const run of this.runs) {
      if (!run) continue; // a strategy no page selected anything for
      run.sort((a, b) => byKey(a.key, b.key, a.seq, b.seq));
      for (const { decision: d } of run) {
        const hit = limiter.take(d.namespace, d.node);
        if (hit === undefined) decisions.push(d);
        else kept.push({ namespace: d.namespace, name: d.name, uid: d.uid, profile: d.profile, strategy: d.strategy, reason: LIMIT_REASON[hit]! });
      }
    }
    return { decisions, kept, totalReached: limiter.totalReached() };
  }
}
