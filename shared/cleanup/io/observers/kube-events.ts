// Kubernetes Events of a pass: the act stage asks the budget whether a removal gets its own
// Event (event-budget.ts); at the end the rest are summed up per namespace. Only for real
// removals with RECORD_EVENTS on: only then is there a budget. Owns `eventsSummarised`.
import type { ClusterWriter } from '../../../kube/writer.js';
import type { PassSettings } from '../../handle.js';
import { EventBudget } from '../event-budget.js';
import type { PassSummary } from '../pass-summary.js';
import type { PassObserver } from './observer.js';

export interface KubeEvents extends PassObserver {
  /** What the act stage asks once a pod is removed. */
  readonly budget: EventBudget;
}

export function kubeEventsOf(settings: Pick<PassSettings, 'recordEvents'>, writer: ClusterWriter, pass: string, perPass?: number): KubeEvents | undefined {
  if (!settings.recordEvents || writer.dryRun) return undefined;
  const budget = new EventBudget(perPass ?? Number.POSITIVE_INFINITY);
  return {
    budget,
    async onEnd(s: PassSummary) {
      s.eventsSummarised = budget.summarised;
      await budget.flush(writer, pass);
    },
  };
}
