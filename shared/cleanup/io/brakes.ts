// Pod cleanup's use of the brakes (shared/brakes): ask before each removal, charge on the API
// server's answer, and say once per budget and window (not per pod) that something was held
// back: a Kubernetes Event in the ledger's namespace, where `kubectl get events -n kube-tidy`
// shows it, and a counter.
import type { ActResult } from './act.js';

// Telling a deferral is the brakes' own rule now, the same for every family (brakes/io/tell.ts).
export { tellDeferral } from '../../brakes/io/tell.js';

/**
 * Whether a removal spent a unit: the API server removed it, or may have (a timeout or a 5xx
 * after sending), or its evacuation was requested instead (a request-evict-only pod: the
 * disruption is started, only slower; the descheduler counts its evictions in the background
 * against its limits too). A refused eviction, a failed precondition, a 404, a write kube-tidy
 * itself refused, or an evacuation already under way (charged when it was requested) spend nothing.
 */
export const charged = (r: Pick<ActResult, 'outcome'>): boolean =>
  r.outcome === 'deleted' || r.outcome === 'evicted' || r.outcome === 'evacuation-requested' || r.outcome === 'failed';
