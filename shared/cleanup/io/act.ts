// Carrying out one of the core's decisions on the pod it was made on (as stored): the write
// goes through the writer with its admission ticket (preconditions, DRY_RUN, protected
// namespaces, one Event; the ticket settled on the answer), and every
// way it can end is a result, never an exception, so a pass can count what did not happen.
import { KubeRequestError, TransientKubeError } from '../../kube/errors.js';
import type { RemovalTarget } from '../../kube/evict-only.js';
import type { RemovalTicket } from '../../kube/admission.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { PodResult } from '../../model/pod-result.js';
import type { Decision } from '../../selection/decision.js';
import { observeRemoval } from '../../metrics/observe.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import type { EventBudget } from './event-budget.js';

/** The one pass result type (model/pod-result.ts), by the name pod cleanup's callers know. */
export type ActResult = PodResult;

/** What every pod's result says about the decision, whatever came of it. */
export const resultOf = (decision: Decision, dryRun: boolean) => ({
  namespace: decision.namespace,
  name: decision.name,
  uid: decision.uid,
  strategy: decision.strategy,
  action: decision.action,
  reason: decision.reason,
  dryRun,
});

/** The write, its result counted in `metrics` (the handle's recorder) as kube_tidy_pods_evicted_total. */
export async function act(
  writer: ClusterWriter,
  metrics: MetricsRecorder,
  target: RemovalTarget,
  ticket: RemovalTicket,
  decision: Decision,
  events?: EventBudget,
): Promise<ActResult> {
  const result = await actOnce(writer, target, ticket, decision, events);
  observeRemoval(metrics, decision, result);
  return result;
}

async function actOnce(writer: ClusterWriter, target: RemovalTarget, ticket: RemovalTicket, decision: Decision, events?: EventBudget): Promise<ActResult> {
  const base = resultOf(decision, writer.dryRun);
  try {
    const ownEvent = events ? () => events.take(decision.namespace, decision.strategy) : undefined;
    // The strategy asks, as the evacuation family names a strategy that asks (evacuation/index.ts).
    const r = await writer.removePod(target, ticket, `kube-tidy ${decision.profile}/${decision.reason}`, {
      requester: `strategy:${decision.strategy}`,
      strategy: decision.strategy,
      ...(ownEvent ? { ownEvent } : {}),
    });
    return { ...base, action: r.action, outcome: r.outcome, ...(r.message ? { message: r.message } : {}) };
  } catch (e) {
    if (e instanceof TransientKubeError) return { ...base, outcome: 'failed', message: e.message };
    if (e instanceof KubeRequestError) return { ...base, outcome: 'refused', message: e.message };
    throw e;
  }
}

/** How many results are work left undone, by the answer's partial-failure rule. */
export function failuresOf(results: Iterable<Pick<ActResult, 'outcome'>>): { transient: number; refused: number } {
  const f = { transient: 0, refused: 0 };
  for (const r of results) {
    if (r.outcome === 'failed') f.transient++;
    else if (r.outcome === 'refused') f.refused++;
  }
  return f;
}
