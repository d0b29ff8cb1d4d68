// Every name kube-tidy owns in a cluster, in one place: the annotations and labels it writes,
// the objects it keeps its state in, the identities it writes under; and, at the end, the
// descheduler's annotations it honours (not its own, but part of its contract).
//
// Spelled here: the names only the I/O uses. Spelled in the pure core and re-exported here:
// the names a core module reads or writes itself (the core may not import shared/kube, the
// boundary of eslint.config.js), so this file is where to look, not always where to change.

/** kube-tidy's own domain: every annotation, label and identity of its own is under it. */
export const DOMAIN = 'kube-tidy.dev';

// --- Identities it writes under -------------------------------------------------------------

/** events.k8s.io reportingController of every Event kube-tidy records. */
export const REPORTING_CONTROLLER = `${DOMAIN}/kube-tidy`;
/** The CloudEvent source of the shards a fanned-out sweep pass posts. */
export const sweepSource = (pass: string): string => `${DOMAIN}/sweep/${pass}`;
/** The label on the objects kube-tidy creates for itself (the standalone Lease). */
export const PART_OF_LABELS: Readonly<Record<string, string>> = { 'app.kubernetes.io/part-of': 'kube-tidy' };

// --- Its state, in its own namespace (and, for MultiKueue, in each worker's Kueue namespace) --

/** ConfigMap: the brakes' shared ledger (brakes/io/store.ts). */
export const BRAKES_NAME = 'kube-tidy-brakes';
/** ConfigMap: the digests of the shards each fanned-out pass posted (cleanup/io/shard-plan.ts). */
export const PLANS_NAME = 'kube-tidy-sweep-plans';
/** ConfigMap: the evacuation slots in flight (evacuation/io/ledger.ts, which re-exports it as LEDGER_NAME). */
export const EVACUATION_LEDGER_NAME = 'kube-tidy-evacuations';
/** ConfigMaps: the due list, one per shard (due/io/list.ts): `kube-tidy-due-0` .. `kube-tidy-due-<DUE_SHARDS - 1>`. */
export const DUE_NAME_PREFIX = 'kube-tidy-due';
export const dueName = (shard: number): string => `${DUE_NAME_PREFIX}-${shard}`;
/** Lease: the standalone program's leader election, by default. Also spelled in standalone/config.ts. */
export const DEFAULT_LEASE_NAME = 'kube-tidy-standalone';
/** ConfigMap in each worker: the MultiKueue witness record. */
export { WITNESS_CONFIGMAP } from '../multikueue/core/witness.js';

// --- Annotations and labels it writes (the pure core's own) ----------------------------------

/** On pods: an evacuation's request and state (evacuation.kube-tidy.dev/*), and the descheduler's in-progress mark. */
export { ANNOTATIONS as EVACUATION_ANNOTATIONS, MARKERS as EVACUATION_MARKERS } from '../evacuation/core/annotations.js';
/** On EvictionRequests (lifecycle.k8s.io): the requester prefix, the pod's uid label. */
export { PREFIX as EVICTION_REQUESTER_PREFIX, POD_UID_LABEL as EVICTION_REQUEST_POD_UID_LABEL, requesterName } from '../evacuation/core/eviction-request.js';
/** On an Eviction kube-tidy answers as responder. */
export { EVICTION_UID_LABEL } from '../evacuation/core/responder.js';
/** On nodes: a defragmentation step's marks. */
export { CORDONED as DEFRAG_CORDONED, IN_FLIGHT as DEFRAG_IN_FLIGHT, MARK as DEFRAG_MARK } from '../defrag/core/marks.js';

// --- The descheduler's annotations it honours (descheduler.alpha.kubernetes.io/*) --------------

export { ANNOTATION_EVICT, ANNOTATION_PREFER_NO_EVICTION } from '../evictor/checks.js';
