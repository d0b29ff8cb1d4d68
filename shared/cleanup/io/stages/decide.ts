// The decide stage of a pass: one page of pods through the core (selection/decide.ts), as it comes.
// Where the order cannot change what is removed (selection/early.ts), the page's deletes are split
// off to be written now; the rest go to the order stage. What each selected pod was when listed
// is kept for its write (uid, resourceVersion, phase, request-evict-only mark), for the selected
// pods only, never the pages. Owns its share of decideMs.
import { removalTarget, type RemovalTarget } from '../../../kube/evict-only.js';
import type { Stored } from '../../../model/identity.js';
import type { Pod } from '../../../model/objects.js';
import { decide } from '../../../selection/decide.js';
import type { Decision, Kept, Plan } from '../../../selection/decision.js';
import { splitEarly } from '../../../selection/early.js';
import type { Policy } from '../../../policy/policy.js';
import type { CarriedWrite } from '../carry.js';
import type { OrderStage } from './order.js';
import type { ReadContext } from './read.js';

export interface DecidedPage {
  /** The page's plan as the core decided it. */
  plan: Plan;
  decidedAt: number;
  /** The uids the core selected on this page. */
  chosen: ReadonlySet<string>;
  /** Deletes to write now (early writes), each with the pod as listed. */
  writes: CarriedWrite[];
  /** What the page's strategies selected and keep (without the early writes' share). */
  kept: readonly Kept[];
}

export interface DecideOptions {
  protectedNamespaces: readonly string[];
  /** Split the page's deletes off for early writes. */
  early: boolean;
  /** Ask the core when time alone brings a pod in (an observer wants it: the due list). */
  eligibleAt: boolean;
  /**
   * Which of a page's decisions this run may act on; default all. The one-pod path's (one-pod.ts):
   * its pod, and those of its owner's older pods retention no longer keeps; the owner's other
   * pods are its page for retention's ranking only (a sweep takes what else is selected).
   */
  only?: (d: Decision) => boolean;
}

export class DecideStage {
  /** Time in the core deciding pages (part of the summary's decideMs). */
  ms = 0;
  /** The selected pods not written early, as listed: what the act stage writes. */
  readonly targets = new Map<string, RemovalTarget>();

  constructor(
    private readonly policy: Policy,
    private readonly context: ReadContext,
    private readonly order: OrderStage,
    private readonly o: DecideOptions,
    private readonly now: () => number,
  ) {}

  page(pods: readonly Stored<Pod>[]): DecidedPage {
    const decidedAt = this.now();
    const decided = decide(this.policy, { ...this.context.snapshot, pods }, decidedAt, {
      ...this.order.options,
      protectedNamespaces: this.o.protectedNamespaces,
      ...(this.context.index ? { index: this.context.index } : {}),
      ...(this.o.eligibleAt ? { eligibleAt: true } : {}),
    });
    const plan = this.o.only ? restricted(decided, this.o.only) : decided;
    this.ms += this.now() - decidedAt;
    const chosen = new Set(plan.decisions.map((d) => d.uid));
    const { early, rest } = this.o.early ? splitEarly(plan) : { early: [], rest: plan };
    const writeNow = new Map(early.map((d) => [d.uid, d]));
    const writes: CarriedWrite[] = [];
    if (plan.decisions.length)
      for (const pod of pods) {
        const uid = pod.metadata.uid!;
        const decision = writeNow.get(uid);
        if (decision) writes.push({ decision, target: removalTarget(pod) });
        else if (chosen.has(uid)) this.targets.set(uid, removalTarget(pod));
      }
    this.order.add(rest, pods);
    return { plan, decidedAt, chosen, writes, kept: rest.kept };
  }
}

/** `plan` with only the decisions `keep` takes, each still with its place in the policy's order. */
function restricted(plan: Plan, keep: (d: Decision) => boolean): Plan {
  const at = plan.decisions.flatMap((d, i) => (keep(d) ? [i] : []));
  if (at.length === plan.decisions.length) return plan;
  return {
    ...plan,
    decisions: at.map((i) => plan.decisions[i]!),
    order: { run: at.map((i) => plan.order.run[i]!), key: at.map((i) => plan.order.key[i]!) },
  };
}
