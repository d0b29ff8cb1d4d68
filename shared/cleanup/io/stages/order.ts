// The order stage of a pass: each strategy's order (oldest first) and the descheduler's limits
// over every page, as one cycle (selection/across-pages.ts). The decide stage adds each page's plan
// to it; once every page is read it gives the decisions in the policy's order and what a limit
// or retention kept. Owns its share of decideMs and whether maxNoOfPodsToEvictTotal was reached.
import { AcrossPages } from '../../../selection/across-pages.js';
import type { Decision, Kept, Plan } from '../../../selection/decision.js';
import type { JobOwners } from '../../../selection/retention.js';
import type { Pod } from '../../../model/objects.js';
import type { Policy } from '../../../policy/policy.js';

export interface Ordered {
  decisions: Decision[];
  kept: Kept[];
  totalReached: boolean;
}

export class OrderStage {
  /** Time in the core ordering (part of the summary's decideMs). */
  ms = 0;
  private readonly across: AcrossPages;

  constructor(
    policy: Policy,
    jobs: JobOwners | undefined,
    private readonly now: () => number,
  ) {
    this.across = new AcrossPages(policy, jobs);
  }

  /** What the decide stage gives the core for every page: the pass's session (and retention deferred). */
  get options() {
    return this.across.options;
  }

  /** One page's plan (without its early writes) and all its pods. */
  add(plan: Plan, pods: readonly Pod[]): void {
    this.across.add(plan, pods);
  }

  finish(): Ordered {
    const started = this.now();
    const finished = this.across.finish();
    this.ms += this.now() - started;
    return finished;
  }
}
