// Every name kube-tidy owns in a cluster, in one place: the annotations and labels it writes,
// the objects it keeps its state in, the identities it writes under; and, at the end, the
// descheduler's annotations it honours (not its own, but part of its contract).
//
// A leaf (infra/lint/floors.js): the pure cores, kube/ and the edges all read it and it imports
// nothing, so a name shared by a family's core and the writer no longer pulls one up to the other.

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
/** ConfigMap: where the previous release kept the evacuation slots; carried into the brakes' ledger and deleted (evacuation/io/legacy-slots.ts). */
export const EVACUATION_SLOTS_NAME = 'kube-tidy-evacuations';
/** ConfigMaps: the due list, one per shard (due/io/list.ts): `kube-tidy-due-0` .. `kube-tidy-due-<DUE_SHARDS - 1>`. */
export const DUE_NAME_PREFIX = 'kube-tidy-due';
export const dueName = (shard: number): string => `${DUE_NAME_PREFIX}-${shard}`;

/**
 * ConfigMaps: cleanup beyond pods' due list (objects/io/due.ts), one list per kind, one map per
 * shard: `kube-tidy-objects-due-job-0`, `-pvc-`, `-workload-` .. `<DUE_SHARDS - 1>`.
 */
export const OBJECTS_DUE_KINDS = { Job: 'job', PersistentVolumeClaim: 'pvc', Workload: 'workload' } as const;
export const objectsDueName = (kind: keyof typeof OBJECTS_DUE_KINDS, shard: number): string => `kube-tidy-objects-due-${OBJECTS_DUE_KINDS[kind]}-${shard}`;
/**
 * ConfigMaps in kube-tidy's namespace: the due lists of a kind a ttl rule names (TTL on any kind),
 * one family per kind by its Kind and group, as the chart's values.ttl.kinds names it, so the
 * chart can grant them by name (`kube-tidy-objects-due-ttl-deployment.apps-0`,
 * `...-ttl-namespace-0` for the core group); a group too long for a name is shortened to its FNV-1a hash.
 * Also spelled in the chart's templates/ttl-rbac.yaml.
 */
export const objectsTtlDueName = (k: { group: string; kind: string }, shard: number): string => {
  const named = `kube-tidy-objects-due-ttl-${k.kind.toLowerCase()}${k.group ? `.${k.group}` : ''}-${shard}`;
  if (named.length <= 253) return named;
  let h = 0x811c9dc5;
  for (let i = 0; i < k.group.length; i++) h = Math.imul(h ^ k.group.charCodeAt(i), 0x01000193) >>> 0;
  return `kube-tidy-objects-due-ttl-${k.kind.toLowerCase()}.${h.toString(16)}-${shard}`;
};
/** Lease: the standalone program's leader election, by default. Also spelled in standalone/config.ts. */
export const DEFAULT_LEASE_NAME = 'kube-tidy-standalone';
/** ConfigMap in each worker: the MultiKueue witness record (multikueue/core/witness.ts). */
export const WITNESS_CONFIGMAP = 'kube-tidy-multikueue-witness';

// --- Annotations and labels it writes ---------------------------------------------------------

const EVACUATION = 'evacuation.kube-tidy.dev/';

/** On pods: an evacuation's request and state (evacuation.kube-tidy.dev/*), and the descheduler's in-progress mark. */
/** Every annotation an evacuation reads or writes on a pod, by what it says. */
export const EVACUATION_ANNOTATIONS = {
  /** The request: set by a person or a tool (value: who asks). Removing it withdraws it. */
  request: `${EVACUATION}request`,
  /** Started | Backoff while an evacuation runs; absent otherwise. */
  state: `${EVACUATION}state`,
  attempt: `${EVACUATION}attempt`,
  /** When the current attempt started, and by when it must be confirmed done (RFC 3339). */
  startedAt: `${EVACUATION}started-at`,
  deadline: `${EVACUATION}deadline`,
  /** The VirtualMachineInstanceMigration of the current attempt, once known. */
  migration: `${EVACUATION}migration`,
  /** The EvictionRequest (lifecycle.k8s.io) of the current attempt, when it goes through that API. */
  evictionRequest: `${EVACUATION}eviction-request`,
  /**
   * Why this evacuation left the EvictionRequest path for the direct one (no controller
   * answered in time). Kept through backoff, so no later attempt asks through a request again;
   * cleared with the rest at the end.
   */
  fallback: `${EVACUATION}fallback`,
  /** Backoff: when the next attempt may start. */
  retryAt: `${EVACUATION}retry-at`,
  /** The last evacuation's end, for people: "Succeeded|Failed|TimedOut|Cancelled at <t>: <why>". */
  result: `${EVACUATION}result`,
  /** The descheduler's contract (EvictionsInBackground): other tools see work in progress. */
  inProgress: 'descheduler.alpha.kubernetes.io/eviction-in-progress',
  /** The descheduler's contract: the owner asks that evictions of this pod start an evacuation. */
  requestEvictOnly: 'descheduler.alpha.kubernetes.io/request-evict-only',
} as const;

/** The annotations kube-tidy itself writes while an evacuation runs (cleared at its end). */
export const EVACUATION_MARKERS = [
  EVACUATION_ANNOTATIONS.state,
  EVACUATION_ANNOTATIONS.attempt,
  EVACUATION_ANNOTATIONS.startedAt,
  EVACUATION_ANNOTATIONS.deadline,
  EVACUATION_ANNOTATIONS.migration,
  EVACUATION_ANNOTATIONS.evictionRequest,
  EVACUATION_ANNOTATIONS.fallback,
  EVACUATION_ANNOTATIONS.retryAt,
  EVACUATION_ANNOTATIONS.inProgress,
] as const;

/** On EvictionRequests (lifecycle.k8s.io): spec.requester and spec.evictionResponders[].name must be domain-prefixed keys ("acme.io/foo"). */
export const EVICTION_REQUESTER_PREFIX = 'kube-tidy.dev/';
export const requesterName = (fn: string): string => `${EVICTION_REQUESTER_PREFIX}${fn}`;
/** Labels kube-tidy puts on its EvictionRequests: which pod (so a gone pod's requests are found). */
export const EVICTION_REQUEST_POD_UID_LABEL = 'evacuation.kube-tidy.dev/pod-uid';
/** On a migration the eviction responder made: which Eviction it is for. */
export const EVICTION_UID_LABEL = 'evacuation.kube-tidy.dev/eviction-uid';

/** On nodes: a defragmentation step's marks (defrag/core/marks.ts). */
export const DEFRAG_MARK = 'kube-tidy.dev/defrag';
/** On the node being freed: the move whose replacement has not been verified yet. */
export const DEFRAG_IN_FLIGHT = 'kube-tidy.dev/defrag-in-flight';
/**
 * On a node kube-tidy cordoned itself. Only such a node is uncordoned when kube-tidy gives it
 * back: one that was already cordoned (an operator's maintenance, a drain) stays cordoned.
 */
export const DEFRAG_CORDONED = 'kube-tidy.dev/defrag-cordoned';

// --- The descheduler's annotations it honours (descheduler.alpha.kubernetes.io/*) --------------

export const ANNOTATION_EVICT = 'descheduler.alpha.kubernetes.io/evict';
export const ANNOTATION_PREFER_NO_EVICTION = 'descheduler.alpha.kubernetes.io/prefer-no-eviction';
