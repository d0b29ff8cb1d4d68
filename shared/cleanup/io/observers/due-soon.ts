// The due list's part of a pass (shared/cleanup/due): the pods seen that time alone brings in within
// `withinMs`, so the sweep lists them and each is acted on at its time rather than at the next
// sweep. It asks the decide stage for eligibility and owns `dueSoon`.
import type { Eligible } from '../../../selection/decision.js';
import type { PassSummary } from '../pass-summary.js';
import type { PageDecided, PassObserver } from './observer.js';

/** At most this many pods due soon are collected by one pass (~100 bytes each; the due list takes fewer). */
export const MAX_DUE_SOON = 10_000;

export class DueSoon implements PassObserver {
  readonly eligibleAt = true;
  private readonly due: Eligible[] = [];

  constructor(private readonly withinMs: number) {}

  onDecision({ plan, decidedAt }: PageDecided): void {
    if (plan.eligible) for (const e of plan.eligible) if (e.at - decidedAt <= this.withinMs && this.due.length < MAX_DUE_SOON) this.due.push(e);
  }

  /** Soonest first. */
  onEnd(s: PassSummary): void {
    s.dueSoon = this.due.sort((a, b) => a.at - b.at);
  }
}
