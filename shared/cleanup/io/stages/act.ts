// The act stage: one removal the admit stage answered, carried out with its ticket (act.ts:
// through the one writer, which settles the ticket on the API server's answer), every way it
// can end a result. A pass and
// the one-pod path (one-pod.ts: an event, a shard's pod, a due act) act through the same
// `actAdmitted`; a pass's ActStage also counts each result (selected, outcomes, failures, the
// first write's time) and hands it to its observers in the order its schedule says (schedules.ts).
import type { Admitted } from '../../../kube/admission.js';
import { KubeRequestError } from '../../../kube/errors.js';
import type { RemovalTarget } from '../../../kube/evict-only.js';
import type { ClusterWriter } from '../../../kube/writer.js';
import type { MetricsRecorder } from '../../../metrics/recorder.js';
import type { Decision } from '../../../selection/decision.js';
import { act, failuresOf, resultOf, type ActResult } from '../act.js';
import type { EventBudget } from '../event-budget.js';

/** The admit stage's answer for one removal: let through, held back, or the brakes' ledger failed. */
export type AdmitAnswer = Admitted | { error: Error };

/**
 * One removal with its admission's answer: held back or a failed ledger is its result (nothing
 * sent); let through, it is written with its ticket (the writer settles it) and counted in
 * `metrics` (the handle's recorder).
 */
export async function actAdmitted(
  writer: ClusterWriter,
  metrics: MetricsRecorder,
  decision: Decision,
  target: RemovalTarget,
  taken: AdmitAnswer,
  events?: EventBudget,
): Promise<ActResult> {
  const base = resultOf(decision, writer.dryRun);
  if ('deferred' in taken) return { ...base, outcome: 'deferred', message: taken.deferred.why };
  if ('error' in taken)
    return { ...base, outcome: taken.error instanceof KubeRequestError ? 'refused' : 'failed', message: `the brakes' ledger: ${taken.error.message}` };
  return act(writer, metrics, target, taken.ticket, decision, events);
}

export interface ActSummary {
  selected: number;
  outcomes: Record<string, number>;
  /** Selected pods not acted on because of a transient failure, or refused for good by the cluster. */
  failures: { transient: number; refused: number };
  /** From the pass's start to its first write. */
  firstWriteMs?: number;
}

export interface ActStageOptions {
  writer: ClusterWriter;
  /** Where each removal is counted: the handle's recorder. */
  metrics: MetricsRecorder;
  /** Kubernetes Events' budget (observers/kube-events.ts), when Events are recorded. */
  events: EventBudget | undefined;
  /** Hands a result on to the pass's observers (observers/observer.ts `Observers.result`). */
  tell: (result: ActResult, decision: Decision) => void;
  now: () => number;
  started: number;
  /**
   * A removal answered `stale` (409: the pod changed since it was listed), read and decided
   * again as stored, once (one-pod.ts `decidedAgain`): its result replaces the stale one.
   * Absent: left stale for the next pass.
   */
  again?: ((decision: Decision, target: RemovalTarget) => Promise<ActResult>) | undefined;
}

export class ActStage {
  readonly summary: ActSummary = { selected: 0, outcomes: {}, failures: { transient: 0, refused: 0 } };

  constructor(private readonly o: ActStageOptions) {}

  /** One removal with its unit of every brake taken (or not): its result, counted. */
  async removal(decision: Decision, target: RemovalTarget, taken: AdmitAnswer): Promise<ActResult> {
    if ('ticket' in taken) this.summary.firstWriteMs ??= this.o.now() - this.o.started;
    let result = await actAdmitted(this.o.writer, this.o.metrics, decision, target, taken, this.o.events);
    if (result.outcome === 'stale' && this.o.again) result = await this.o.again(decision, target);
    const s = this.summary;
    s.selected++;
    s.outcomes[result.outcome] = (s.outcomes[result.outcome] ?? 0) + 1;
    const f = failuresOf([result]);
    s.failures.transient += f.transient;
    s.failures.refused += f.refused;
    return result;
  }

  /** A result handed on to the observers, when its schedule says. */
  told(result: ActResult, decision: Decision): void {
    this.o.tell(result, decision);
  }

  /** Selected pods never started for a reason that is work left undone (a shard not posted, a failed ledger): transient failures. */
  undone(n: number): void {
    this.summary.failures.transient += n;
  }
}
