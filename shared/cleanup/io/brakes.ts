// Pod cleanup's use of the brakes (shared/brakes): ask before each removal, charge on the API
// server's answer, and say once per budget and window (not per pod) that something was held
// back: a Kubernetes Event in the ledger's namespace, where `kubectl get events -n kube-tidy`
// shows it, and a counter.
import type { Brakes, Deferral } from '../../brakes/io/brakes.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { Logger } from '../../log.js';
import { observeDeferral } from '../../metrics/observe.js';
import type { ActResult } from './act.js';

/**
 * Whether a removal spent a unit: the API server removed it, or may have (a timeout or a 5xx
 * after sending), or its evacuation was requested instead (a request-evict-only pod: the
 * disruption is started, only slower; the descheduler counts its evictions in the background
 * against its limits too). A refused eviction, a failed precondition, a 404, a write kube-tidy
 * itself refused, or an evacuation already under way (charged when it was requested) spend nothing.
 */
export const charged = (r: Pick<ActResult, 'outcome'>): boolean =>
  r.outcome === 'deleted' || r.outcome === 'evicted' || r.outcome === 'evacuation-requested' || r.outcome === 'failed';

const told = new Set<string>();

/**
 * A deferral counted, and once per budget and window in this process (the Event's name makes
 * it once per cluster) logged and recorded as an Event: a storm of deferrals is one line.
 */
export async function tellDeferral(writer: ClusterWriter, log: Logger, brakes: Brakes, d: Deferral, path: 'event' | 'pass', n = 1): Promise<void> {
  observeDeferral(d, path, n);
  // A budget: once per window (freesAt). An abort: once per stop (its words name the pass and the time).
  const once = `brakes-${d.budget}-${d.scope}-${d.key ?? ''}-${d.freesAt ?? d.why}`;
  if (told.has(once)) return;
  if (told.size > 1000) told.clear();
  told.add(once);
  log.warn({ budget: d.budget, scope: d.scope, key: d.key, limit: d.limit, freesAt: d.freesAt, path }, `brakes: ${d.why}`);
  await writer
    .recordNamespaceEvent(brakes.namespace, {
      reason: d.kind === 'abort' ? 'PassAborted' : d.kind === 'ledger' ? 'BudgetUnknown' : 'BudgetExhausted',
      action: 'Defer',
      type: 'Warning',
      note: `kube-tidy: ${d.why}`,
      once,
    })
    .catch(() => undefined);
}
