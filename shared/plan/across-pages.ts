import { EvictionLimiter } from '../evictor/limits.js';
import type { Pod } from '../model/objects.js';
import type { Policy } from '../policy/policy.js';
import { byKey, LIMIT_REASON, newSession, type DecideOptions, type DecideSession } from './decide.js';
import type { Decision, Kept, Plan } from './decision.js';
import { RetentionIndex, ruleFor, type JobOwners } from './retention.js';

// A pass reads the cluster a page at a time, but the descheduler's order and limits are
// over all pods at once: each strategy acts on the oldest (or most restarted) first, and
// maxNoOfPodsToEvict* keep the first in that order. So a pass decides every page without
// limits (the gate still applies), keeps the decisions (not the pods) with where each stands
// in the policy's order (Plan.order), and only then puts them in order and applies the
// limits: the same decisions, in the same order, as one decide over every page's pods.
// Memory grows with the pods selected, not the pods seen.
//
// kubeTidy.retention is over every page too: an owner's newest pods may be on any page. With
// retention rules, each page's finished pods leave a few fields each (plan/retention.ts,
// `Finished`: uid, phase, time, owner), not the pods; runs with a rule hand on their pods
// undecided (decide's retention 'defer'), and finish keeps the newest of each owner before it
// applies the limits, in the same order as one decide over every page.

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
  /** The finished pods of every page, when the policy keeps some per owner. */
  private readonly retained: RetentionIndex | undefined;

  /** `jobs`: the CronJob of each Job, so that a CronJob's pods are one group (absent: each Job is its own). */
  constructor(
    private readonly policy: Policy,
    jobs?: JobOwners,
  ) {
    this.session = { ...newSession(policy), limiter: new EvictionLimiter({}) };
    this.retained = policy.retention?.length ? new RetentionIndex(jobs) : undefined;
  }

  /** Give these to decide for every page, with `session`. */
  get options(): Pick<DecideOptions, 'session' | 'retention'> {
    return { session: this.session, ...(this.retained ? { retention: 'defer' as const } : {}) };
  }

  /** One page's plan, decided with `options`; `pods`: the page's pods (all of them: a pod no strategy selects still counts among its owner's newest). */
  add(plan: Plan, pods: readonly Pod[] = []): void {
    if (this.retained) for (const pod of pods) this.retained.see(pod);
    plan.decisions.forEach((decision, i) => {
      (this.runs[plan.order.run[i]!] ??= []).push({ decision, key: plan.order.key[i]!, seq: this.seq++ });
    });
  }

  /** Every decision in the policy's order, limits applied; the ones a limit held back, as kept. */
  finish(): { decisions: Decision[]; kept: Kept[]; totalReached: boolean } {
    const limiter = new EvictionLimiter(this.policy.limits);
    const decisions: Decision[] = [];
    const kept: Kept[] = [];
    // A run with a retention rule handed its pods on without taking them: the first run that
    // does take a pod has it, as in one decide. (Without rules decide never repeats a pod.)
    const taken = this.retained ? new Set<string>() : undefined;
    for (const run of this.runs) {
      if (!run) continue; // a strategy no page selected anything for
      run.sort((a, b) => byKey(a.key, b.key, a.seq, b.seq));
      for (const { decision: d } of run) {
        if (taken?.has(d.uid)) continue;
        const why = this.retained?.keeps(ruleFor(this.policy.retention, d.profile, d.strategy), d.uid);
        const hit = why === undefined ? limiter.take(d.namespace, d.node) : undefined;
        const reason = why ?? (hit === undefined ? undefined : LIMIT_REASON[hit]!);
        if (reason === undefined) {
          decisions.push(d);
          taken?.add(d.uid);
        } else kept.push({ namespace: d.namespace, name: d.name, uid: d.uid, profile: d.profile, strategy: d.strategy, reason });
      }
    }
    return { decisions, kept, totalReached: limiter.totalReached() };
  }
}
