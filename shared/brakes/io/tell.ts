// A deferral said: counted, and once per budget and window (not per pod) logged and recorded
// as a Kubernetes Event in the ledger's namespace, where `kubectl get events -n kube-tidy`
// shows it. One rule for every family the brakes hold back (pod cleanup's event path and
// passes, defrag through the admission port: admission.ts), so a storm of deferrals is one line
// whichever family met the limit first.
import type { ClusterWriter } from '../../kube/writer.js';
import type { Logger } from '../../log.js';
import { observeDeferral, type DeferralPath } from '../../metrics/observe.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import type { Deferral } from '../../model/removal.js';

/**
 * A deferral counted, and once per budget and window in this process (the Event's name makes
 * it once per cluster) logged and recorded as an Event: a storm of deferrals is one line. What
 * was told is the process's brakes' `told` (one set per process, built by its host's runtime);
 * it is counted in the brakes' recorder (the host's).
 */
export async function tellDeferral(
  writer: ClusterWriter,
  log: Logger,
  brakes: { namespace: string; told: Set<string>; metrics: MetricsRecorder },
  d: Deferral,
  path: DeferralPath,
  n = 1,
): Promise<void> {
  const told = brakes.told;
  observeDeferral(brakes.metrics, d, path, n);
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
