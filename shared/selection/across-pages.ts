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
// Memory grows with the pods selected, not the pods seen: per selected pod, its decision and
// its sort key (no wrapper object), the strings many decisions share (namespace, node, reason)
// kept once (issue 27: a few hundred bytes a pod, at 37,500 selected pods, is the plan).
//
// kubeTidy.retention is over every page too: an owner's newest pods may be on any page. With
// retention rules, each page's finished pods leave a few fields each (selection/retention.ts,
// `Finished`: uid, phase, time, owner), not the pods; runs with a rule hand on their pods
// undecided (decide's retention 'defer'), and finish keeps the newest of each owner before it
// applies the limits, in the same order as one decide over every page.

/** One strategy run's decisions in the order the pages brought them, and each one's sort key. */
interface Run {
  decisions: Decision[];
  keys: number[];
}

/** The same string kept once, up to `max` distinct ones (past that, as they come): bounded whatever the pods. */
function interner(max: number): (s: string) => string {
  const seen = new Map<string, string>();
  return (s) => {
    const known = seen.get(s);
    if (known !== undefined) return known;
    if (seen.size < max) seen.set(s, s);
    return s;
  };
}

const INTERNED = 4096;

export class AcrossPages {
  /** Give this to decide for every page: it remembers decided pods, and sets no limits. */
  readonly session: DecideSession;
  /** Per strategy run, in the policy's order. */
  private readonly runs: Run[] = [];
  private readonly namespaces = interner(INTERNED);
  private readonly nodes = interner(INTERNED);
  /** A strategy's reason is mostly the same few words ("PodLifeTime: phase Failed"), built anew for each pod. */
  private readonly reasons = interner(INTERNED);
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
    plan.decisions.forEach((d, i) => {
      // The plan is this pass's to keep: its strings are swapped for equal ones kept once.
      d.namespace = this.namespaces(d.namespace);
      if (d.node !== undefined) d.node = this.nodes(d.node);
      d.reason = this.reasons(d.reason);
      const run = (this.runs[plan.order.run[i]!] ??= { decisions: [], keys: [] });
      run.decisions.push(d);
      run.keys.push(plan.order.key[i]!);
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
      // Equal keys in the order the pages brought them (positions, as decide sorts: no object per pod).
      const { keys } = run;
      const order = Array.from(keys.keys()).sort((a, b) => byKey(keys[a]!, keys[b]!, a, b));
      for (const o of order) {
        const d = run.decisions[o]!;
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
