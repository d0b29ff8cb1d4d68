// Pure: what the machine observes of a pod and of its attempt's migration (or EvictionRequest,
// seen as one). A file of its own so the views' builders (pod-view.ts, eviction-request.ts)
// and the machine that reads them import downward only.
export interface MigrationView {
  name: string;
  /** status.phase; '' while nobody has set one yet (a new migration). */
  phase: string;
  /** The name is already on the pod (else it was found by its VMI and must be recorded). */
  recorded: boolean;
  /** How the reasons name it (default `migration <name>`): an attempt's EvictionRequest reads as one. */
  what?: string;
  /** What its status says beyond the phase (an EvictionRequest's condition, the active responder). */
  detail?: string;
  /** An EvictionRequest's: a controller acted on it (a responder became Active, or it ended). */
  answered?: boolean;
}

export interface PodView {
  uid: string;
  node?: string;
  phase?: string;
  deleting: boolean;
  annotations: Record<string, string>;
  /** Set for a KubeVirt launcher pod (label kubevirt.io=virt-launcher, owned by a VMI). */
  vmi?: string;
}
