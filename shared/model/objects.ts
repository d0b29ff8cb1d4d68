// The slice of the Kubernetes wire format the core reads. Plain JSON as the API server
// and `kubectl get -o json` send it: timestamps are RFC 3339 strings. client-node's typed
// models turn them into Date objects, so both are accepted wherever time is read.

export type Timestamp = string | Date;

export interface OwnerReference {
  apiVersion?: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
}

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: Timestamp;
  deletionTimestamp?: Timestamp;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export interface ContainerStateTerminated {
  exitCode: number;
  reason?: string;
  signal?: number;
  /** When the container ended: retention ranks a pod's finish by it (selection/retention.ts). */
  finishedAt?: Timestamp;
}

export interface ContainerStatus {
  name: string;
  restartCount?: number;
  state?: {
    waiting?: { reason?: string };
    running?: { startedAt?: Timestamp };
    terminated?: ContainerStateTerminated;
  };
}

export interface PodCondition {
  type: string;
  status: string;
  reason?: string;
  lastTransitionTime?: Timestamp;
}

export interface Volume {
  name: string;
  hostPath?: unknown;
  emptyDir?: unknown;
  persistentVolumeClaim?: { claimName: string };
  ephemeral?: unknown;
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
}

export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface PodSpec {
  nodeName?: string;
  priority?: number;
  priorityClassName?: string;
  volumes?: Volume[];
  resourceClaims?: unknown[];
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  affinity?: {
    nodeAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: {
        nodeSelectorTerms: { matchExpressions?: NodeSelectorRequirement[] }[];
      };
    };
    /** Read by defragmentation: where a pod may not (or must) run beside others. */
    podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] };
    podAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] };
  };
  topologySpreadConstraints?: { whenUnsatisfiable?: string; topologyKey: string; maxSkew: number }[];
  containers?: { name: string; resources?: { requests?: Record<string, string | number> } }[];
  initContainers?: { name: string; resources?: { requests?: Record<string, string | number> } }[];
}

export interface PodAffinityTerm {
  labelSelector?: LabelSelector;
  topologyKey: string;
  namespaces?: string[];
  namespaceSelector?: LabelSelector;
}

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: PodSpec;
  status?: {
    phase?: PodPhase | string;
    reason?: string;
    startTime?: Timestamp;
    conditions?: PodCondition[];
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
    ephemeralContainerStatuses?: ContainerStatus[];
  };
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface Node {
  metadata: ObjectMeta;
  spec?: { unschedulable?: boolean; taints?: Taint[] };
  status?: {
    allocatable?: Record<string, string | number>;
    conditions?: { type: string; status: string }[];
  };
}

export interface Namespace {
  metadata: ObjectMeta;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export type IntOrPercent = number | string;

export interface PodDisruptionBudget {
  metadata: ObjectMeta;
  spec?: { selector?: LabelSelector; minAvailable?: IntOrPercent; maxUnavailable?: IntOrPercent };
  status?: { disruptionsAllowed?: number; currentHealthy?: number; expectedPods?: number };
}

export interface PriorityClass {
  metadata: ObjectMeta;
  value: number;
}
