// Pod cleanup's decisions as events. The event path (one pod per invocation) sends one event per
// decision. A pass sends one per decision for its first `perPod` (the same budget as its
// Kubernetes Events, SWEEP_EVENTS_PER_PASS) and the rest in pods.decided batches, in the
// policy's order: a receiver gets every decision in a bounded number of events, then the
// pass's pass.completed, which says how many of each to expect.
import type { Decision } from '../selection/decision.js';
import { podDecisionEvent, podsDecidedEvent, passCompletedEvent, podSubject } from './build.js';
import type { Notifier } from './notifier.js';
import type { PodResult } from '../model/pod-result.js';
import type { DueAct, Origin, PassSummaryData, PodDecision } from './types.js';

/** What came of a decision: of the one pass result (model/pod-result.ts), what the decision does not say. */
export type Outcome = Pick<PodResult, 'action' | 'outcome' | 'dryRun' | 'message'>;

export function podDecision(d: Decision, r: Outcome, origin: Origin, pass?: string, due?: DueAct): PodDecision {
  return {
    namespace: d.namespace,
    name: d.name,
    uid: d.uid,
    ...(d.node ? { node: d.node } : {}),
    strategy: d.strategy,
    profile: d.profile,
    reason: d.reason,
    action: r.action,
    outcome: r.outcome,
    dryRun: r.dryRun,
    ...(r.message ? { message: r.message } : {}),
    origin,
    ...(pass ? { pass } : {}),
    ...(due ? { due } : {}),
  };
}

/** One decision on the event path (its due timer or tick: `due`) or a shard's, as its own event. */
export function podDecided(n: Notifier, d: Decision, r: Outcome, origin: Origin, pass?: string, due?: DueAct): void {
  if (!n.on) return;
  n.emit(podDecisionEvent(n.stamp(), podDecision(d, r, origin, pass, due)), { keys: [podSubject(d.namespace, d.name)] });
}

/** A pass's decisions, handed over in the policy's order. */
export class PassEvents {
  private single = 0;
  private batched = 0;
  private batches = 0;
  private batch: PodDecision[] = [];
  private dryRun = false;

  constructor(
    private readonly n: Notifier,
    private readonly origin: Origin,
    private readonly pass: string,
    private readonly perPod: number,
    private readonly batchSize: number,
  ) {}

  decided(d: Decision, r: Outcome): void {
    const one = podDecision(d, r, this.origin, this.pass);
    this.dryRun ||= r.dryRun;
    if (this.single < this.perPod) {
      this.single++;
      return this.n.emit(podDecisionEvent(this.n.stamp(), one), { keys: [podSubject(d.namespace, d.name)] });
    }
    this.batch.push(one);
    if (this.batch.length >= this.batchSize) this.sendBatch();
  }

  /** The pass is done: the last batch, then its summary (sent after every decision before it). */
  completed(summary: Omit<PassSummaryData, 'kind' | 'pass' | 'decisions'>): void {
    this.sendBatch();
    const data: PassSummaryData = {
      ...summary,
      kind: this.origin === 'event' ? 'shard' : this.origin,
      pass: this.pass,
      decisions: { single: this.single, batched: this.batched, batches: this.batches },
    };
    this.n.emit(passCompletedEvent(this.n.stamp(), data), { barrier: true });
  }

  private sendBatch(): void {
    if (!this.batch.length) return;
    const decisions = this.batch;
    this.batch = [];
    this.batches++;
    this.batched += decisions.length;
    this.n.emit(podsDecidedEvent(this.n.stamp(), { origin: this.origin, pass: this.pass, dryRun: this.dryRun, batch: this.batches, decisions }), {
      keys: decisions.map((x) => podSubject(x.namespace, x.name)),
    });
  }
}

/** A pass's events, or undefined when events are off (the pass then builds nothing). */
export function passEvents(n: Notifier, origin: Origin, pass: string, perPod = Number.POSITIVE_INFINITY): PassEvents | undefined {
  return n.on && n.settings ? new PassEvents(n, origin, pass, perPod, n.settings.batchSize) : undefined;
}
