// Pod cleanup's use of the brakes (shared/brakes): each removal asks the admission port
// (kube/admission.ts, cleanup/handle.ts `cleanupAdmission`) and settles on the API server's
// answer; what was held back is said once per budget and window (not per pod): a Kubernetes
// Event in the ledger's namespace, where `kubectl get events -n kube-tidy` shows it, and a counter.
// Telling a deferral is the brakes' own rule now, the same for every family (brakes/io/tell.ts).
export { tellDeferral } from '../../brakes/io/tell.js';

// Whether a removal spent a unit is the admission port's one rule for every family
// (kube/admission.ts `removalCharged`).
