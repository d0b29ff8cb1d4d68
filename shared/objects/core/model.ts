// What the object-cleanup core reads: each object as stored (its identity, labels, owners and
// the conditions its controller wrote), and the context its owner rules need, as plain data
// the I/O read from the API server. Nothing here is taken from an event: the stored state
// decides (the I/O re-reads before it writes).
import type { ObjectKind } from '../../policy/objects-schema.js';

export interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
}

export interface StoredCondition {
  type: string;
  status: string;
  reason?: string;
  /** RFC 3339, as the API server stores it; absent or unreadable: the condition's age is unknown. */
  lastTransitionTime?: string;
}

export interface StoredObject {
  kind: ObjectKind;
  /** The object's API version (kueue.x-k8s.io/v1beta1 for a Workload). */
  apiVersion: string;
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  ownerReferences?: OwnerRef[];
  conditions: StoredCondition[];
  /** A claim's bound volume (spec.volumeName). */
  volumeName?: string;
}

/** A StatefulSet as its claims' rule reads it (apps/v1). */
export interface StatefulSetClaims {
  namespace: string;
  name: string;
  replicas: number;
  /** spec.volumeClaimTemplates[].metadata.name. */
  templates: string[];
  /** spec.persistentVolumeClaimRetentionPolicy (Retain when absent, as the API server defaults it). */
  whenScaled: 'Retain' | 'Delete';
  whenDeleted: 'Retain' | 'Delete';
}

export interface ObjectContext {
  /** "namespace/name" of a CronJob -> its history limits, defaults filled (3 and 1, as batch/v1 defaults them). */
  cronJobs: ReadonlyMap<string, { successful: number; failed: number }>;
  statefulSets: readonly StatefulSetClaims[];
  /** "namespace/claim" a workload's pod template names (Deployment, CronJob, StatefulSet, DaemonSet, ReplicaSet, Job). */
  templateClaims: ReadonlySet<string>;
  /** "namespace/claim" -> a pod not stored Succeeded or Failed that names it (Pending included). */
  podClaims: ReadonlyMap<string, string>;
  /** A volume's name -> its persistentVolumeReclaimPolicy. */
  volumes: ReadonlyMap<string, string>;
}

export const emptyContext = (): ObjectContext => ({
  cronJobs: new Map(),
  statefulSets: [],
  templateClaims: new Set(),
  podClaims: new Map(),
  volumes: new Map(),
});

export interface ObjectId {
  /** An objects rule's kind, or any kind a ttl rule names (Namespace, Deployment). */
  kind: string;
  /** A ttl rule's object: its API version (an objects rule's kind has one, objects/io/read.ts). */
  apiVersion?: string;
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
}

/** What a decision removes: the object, or for a Workload its controller owner (kueue#14672), which takes the Workload with it. */
export interface RemovalTarget {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

export interface ObjectDecision extends ObjectId {
  rule: string;
  mode: 'report' | 'delete';
  /** The condition that matched and since when (epoch ms). */
  condition: string;
  since: number;
  reason: string;
  target: RemovalTarget;
  /** A ttl rule's decision: how its delete propagates (the rule's, or the object's Kyverno annotation). */
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  /**
   * A ttl rule's Pod, as read: its phase and annotations, so that it leaves as every pod does
   * (kube/writer.ts removePod: DELETEd only when stored terminal, else the Eviction API, so a
   * PodDisruptionBudget holds; a request-evict-only pod's evacuation asked for).
   */
  pod?: { phase: string; annotations?: Record<string, string> };
}

export interface ObjectKept extends ObjectId {
  rule: string;
  reason: string;
}

/** A matching object that time alone will bring in, and when (epoch ms). */
export interface ObjectEligible extends ObjectId {
  rule: string;
  at: number;
}

export interface ObjectPlan {
  decisions: ObjectDecision[];
  kept: ObjectKept[];
  eligible: ObjectEligible[];
}
