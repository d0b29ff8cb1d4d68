// What watches a pass without being one of its stages: the answer's lists, the due list's pods
// due soon, Kubernetes Events' budget, CloudEvents, the request and time meter, and the
// caller's own (the CLI's progress, OpenReports). Each subscribes to what it needs and owns the
// summary fields it fills at the end; the stages only say what happened, in one place each.
import type { Decision, Kept, Plan } from '../../../selection/decision.js';
import type { ActResult } from '../act.js';
import type { PassSummary } from '../pass-summary.js';

/** After each page is read and decided. */
export interface PageProgress {
  pages: number;
  podsSeen: number;
  remainingItemCount?: number;
}

/** One page's plan as the core decided it (before early writes are split off), and when. */
export interface PageDecided {
  plan: Plan;
  decidedAt: number;
}

export interface PassObserver {
  /** Asks the decide stage for when time alone brings a pod in (Plan.eligible): it costs the core work, so only on request. */
  readonly eligibleAt?: boolean;
  onPage?(progress: PageProgress): void;
  onDecision?(page: PageDecided): void;
  /** Each result with the decision it carried out, in the order its schedule hands them on (act stage). */
  onResult?(result: ActResult, decision: Decision): void;
  /** Pods a strategy selected and the pass keeps (a limit, a brake, retention), never an empty list. */
  onKept?(kept: readonly Kept[]): void;
  /** The pass is done: fill the fields this observer owns and say what it says at the end. Called in subscription order, each awaited. */
  onEnd?(summary: PassSummary): void | Promise<void>;
}

/** A pass's observers, called in the order they subscribed. */
export class Observers {
  private readonly list: PassObserver[];

  constructor(list: readonly (PassObserver | undefined)[]) {
    this.list = list.filter((o): o is PassObserver => o !== undefined);
  }

  get eligibleAt(): boolean {
    return this.list.some((o) => o.eligibleAt === true);
  }

  page(progress: PageProgress): void {
    for (const o of this.list) o.onPage?.(progress);
  }

  decided(page: PageDecided): void {
    for (const o of this.list) o.onDecision?.(page);
  }

  result(result: ActResult, decision: Decision): void {
    for (const o of this.list) o.onResult?.(result, decision);
  }

  kept(kept: readonly Kept[]): void {
    if (kept.length) for (const o of this.list) o.onKept?.(kept);
  }

  async end(summary: PassSummary): Promise<void> {
    for (const o of this.list) await o.onEnd?.(summary);
  }
}
