// The answer's per-pod lists: the first results (in the order they were handed on: early writes
// as they ended, then the rest in the policy's order) and the first kept pods, each capped at
// maxResults; `kept` counts every kept pod. Nothing per pod beyond the caps is held.
import type { Kept } from '../../../selection/decision.js';
import type { ActResult } from '../act.js';
import type { PassSummary } from '../pass-summary.js';
import type { PassObserver } from './observer.js';

export class AnswerLists implements PassObserver {
  private kept = 0;
  private readonly keptPods: PassSummary['keptPods'] = [];
  private readonly results: ActResult[] = [];

  constructor(private readonly max: number) {}

  onResult(result: ActResult): void {
    if (this.results.length < this.max) this.results.push(result);
  }

  onKept(kept: readonly Kept[]): void {
    this.kept += kept.length;
    for (const k of kept)
      if (this.keptPods.length < this.max) this.keptPods.push({ namespace: k.namespace, name: k.name, strategy: k.strategy, reason: k.reason });
  }

  onEnd(s: PassSummary): void {
    s.kept = this.kept;
    s.keptPods = this.keptPods;
    s.results = this.results;
  }
}
