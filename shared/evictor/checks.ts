import type { Pod } from '../model/objects.js';
import { toMillis } from '../model/time.js';
import { compileLabelSelector, isEmptySelector, type LabelMatcher } from '../policy/label-selector.js';
import { parseSelectorString } from '../policy/selector-string.js';
import { parseGoDuration } from '../policy/duration.js';
import type { SnapshotIndex } from './snapshot-index.js';
import type { DefaultEvictorArgs, Protection } from './schema.js';
import { fitsNode } from './node-fit.js';
import { BUILT_IN_PRIORITY_CLASSES, SYSTEM_CRITICAL_PRIORITY } from '../model/priority.js';

// The gate's small checks. Each answers "why this pod must not be touched", or undefined.

export type Action = 'delete' | 'evict';

export interface CheckContext {
  index: SnapshotIndex;
  now: number;
  action: Action;
}

export type Check = (pod: Pod, ctx: CheckContext) => string | undefined;

const ANNOTATION_MIRROR = 'kubernetes.io/config.mirror';
const ANNOTATION_CONFIG_SOURCE = 'kubernetes.io/config.source';

// --- always on: no policy can make these pods fair game ---

export const isTerminating: Check = (pod) => (pod.metadata.deletionTimestamp ? 'pod is already terminating' : undefined);

export const isMirror: Check = (pod) => (pod.metadata.annotations?.[ANNOTATION_MIRROR] !== undefined ? 'pod is a mirror pod' : undefined);

export const isStatic: Check = (pod) => {
  const source = pod.metadata.annotations?.[ANNOTATION_CONFIG_SOURCE];
  return source !== undefined && source !== 'api' ? 'pod is a static pod' : undefined;
};

export function inProtectedNamespace(namespaces: ReadonlySet<string>): Check {
  return (pod) => {
    const ns = pod.metadata.namespace ?? '';
    return namespaces.has(ns) ? `namespace ${ns} is protected` : undefined;
  };
}

/**
 * The descheduler processes only Ready nodes: a pod on a node that reports Ready other than
 * True, or on a node the snapshot does not list (deleted), is not judged. Only when the
 * snapshot holds nodes at all: without them readiness is unknown and the check stays out of
 * the way (an event answered from the pod alone).
 */
export const onReadyNode: Check = (pod, ctx) => {
  const nodes = ctx.index.nodes;
  const name = pod.spec?.nodeName;
  if (!nodes || !name) return undefined;
  const node = nodes.get(name);
  if (!node) return `node ${name} is not in the cluster's node list`;
  // As the descheduler reads it: a Ready condition other than True; no condition is no verdict.
  const ready = node.status?.conditions?.find((x) => x.type === 'Ready');
  return ready && ready.status !== 'True' ? `node ${name} is not Ready` : undefined;
};

// --- protections (podProtections / deprecated flags) ---

const hasOwner = (pod: Pod) => (pod.metadata.ownerReferences ?? []).length > 0;

function bareProtection(protectFailed: boolean): Check {
  return (pod) => {
    if (hasOwner(pod)) return undefined;
    if (protectFailed) return 'pod has no owner (FailedBarePods protection)';
    return pod.status?.phase === 'Failed' ? undefined : 'pod has no owner and is not Failed';
  };
}

const systemCritical: Check = (pod) => {
  const p = pod.spec?.priority;
  const cls = pod.spec?.priorityClassName;
  // Dumps without an admission-filled priority still name the class.
  if ((p !== undefined && p >= SYSTEM_CRITICAL_PRIORITY) || (cls !== undefined && BUILT_IN_PRIORITY_CLASSES.has(cls))) {
    return 'pod has system-critical priority (SystemCriticalPods protection)';
  }
  return undefined;
};

const localStorage: Check = (pod) =>
  (pod.spec?.volumes ?? []).some((v) => v.hostPath !== undefined || v.emptyDir !== undefined)
    ? 'pod has local storage (PodsWithLocalStorage protection)'
    : undefined;

const daemonSet: Check = (pod) =>
  (pod.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet') ? 'pod belongs to a DaemonSet (DaemonSetPods protection)' : undefined;

function pvcProtection(storageClasses: readonly string[]): Check {
  const protectedClasses = new Set(storageClasses);
  return (pod, ctx) => {
    const claims = (pod.spec?.volumes ?? []).filter((v) => v.persistentVolumeClaim || v.ephemeral);
    if (claims.length === 0) return undefined;
    if (protectedClasses.size === 0) return 'pod uses a PersistentVolumeClaim (PodsWithPVC protection)';
    for (const v of claims) {
      const name = v.persistentVolumeClaim?.claimName;
      const cls = name ? ctx.index.pvcStorageClasses?.get(`${pod.metadata.namespace}/${name}`) : undefined;
      // An unknown class could be a protected one; so could a claim without a class (the
      // descheduler cannot resolve its class either, and protects the pod).
      if (!cls || protectedClasses.has(cls)) return `pod uses a PersistentVolumeClaim of a protected storage class (PodsWithPVC protection)`;
    }
    return undefined;
  };
}

const withoutPdb: Check = (pod, ctx) => {
  const byNs = ctx.index.pdbsByNamespace;
  if (!byNs) return 'PodDisruptionBudgets unknown (PodsWithoutPDB protection)';
  const covered = (byNs.get(pod.metadata.namespace ?? '') ?? []).some((m) => m(pod.metadata.labels));
  return covered ? undefined : 'pod has no PodDisruptionBudget (PodsWithoutPDB protection)';
};

const resourceClaims: Check = (pod) =>
  (pod.spec?.resourceClaims ?? []).length > 0 ? 'pod uses ResourceClaims (PodsWithResourceClaims protection)' : undefined;

export function protectionChecks(protections: ReadonlySet<Protection>, args: DefaultEvictorArgs): Check[] {
  const checks: Check[] = [bareProtection(protections.has('FailedBarePods'))];
  if (protections.has('SystemCriticalPods')) checks.push(systemCritical);
  if (protections.has('PodsWithLocalStorage')) checks.push(localStorage);
  if (protections.has('DaemonSetPods')) checks.push(daemonSet);
  if (protections.has('PodsWithPVC')) {
    checks.push(pvcProtection((args.podProtections.config?.PodsWithPVC?.protectedStorageClasses ?? []).map((c) => c.name)));
  }
  if (protections.has('PodsWithoutPDB')) checks.push(withoutPdb);
  if (protections.has('PodsWithResourceClaims')) checks.push(resourceClaims);
  return checks;
}

// --- the other DefaultEvictor arguments ---

export function priorityThreshold(threshold: { value?: number; name?: string }): Check {
  return (pod, ctx) => {
    const limit = threshold.value ?? ctx.index.priorityValues.get(threshold.name ?? '');
    if (limit === undefined) return `priority class ${threshold.name} is unknown`;
    const p = pod.spec?.priority;
    return p !== undefined && p >= limit ? `pod priority ${p} is at or above the threshold ${limit}` : undefined;
  };
}

export function podLabels(selector: DefaultEvictorArgs['labelSelector']): Check | undefined {
  if (isEmptySelector(selector)) return undefined;
  const matches = compileLabelSelector(selector);
  return (pod) => (matches(pod.metadata.labels) ? undefined : 'pod labels do not match the evictor labelSelector');
}

export function namespaceLabels(selector: DefaultEvictorArgs['namespaceLabelSelector']): Check | undefined {
  if (isEmptySelector(selector)) return undefined;
  const matches = compileLabelSelector(selector);
  return (pod, ctx) => {
    const ns = ctx.index.namespaces?.get(pod.metadata.namespace ?? '');
    if (!ns) return `labels of namespace ${pod.metadata.namespace} unknown (namespaceLabelSelector)`;
    return matches(ns.metadata.labels) ? undefined : 'namespace labels do not match the evictor namespaceLabelSelector';
  };
}

function compileSelectorString(text: string | undefined): LabelMatcher {
  if (!text) return () => true;
  const parsed = parseSelectorString(text);
  // Validation rejects bad text before this runs; matching nothing is the safe fallback.
  return typeof parsed === 'string' ? () => false : compileLabelSelector(parsed);
}

/** The policy's top-level nodeSelector: only pods on the selected nodes are processed. */
export function onSelectedNode(text: string | undefined): Check | undefined {
  if (!text) return undefined;
  const matches = compileSelectorString(text);
  return (pod, ctx) => {
    const name = pod.spec?.nodeName;
    const node = name ? ctx.index.nodes?.get(name) : undefined;
    if (!node) return `node ${name ?? '(none)'} unknown (policy nodeSelector)`;
    return matches(node.metadata.labels) ? undefined : `node ${name} is outside the policy nodeSelector`;
  };
}

export function minReplicas(min: number): Check | undefined {
  if (min <= 1) return undefined;
  return (pod, ctx) => {
    const owners = pod.metadata.ownerReferences ?? [];
    if (owners.length !== 1) return undefined;
    const count = ctx.index.ownerCounts.get(owners[0]!.uid) ?? 0;
    return count < min ? `owner has ${count} pods, fewer than minReplicas ${min}` : undefined;
  };
}

export function minPodAge(text: string | undefined): Check | undefined {
  if (text === undefined) return undefined;
  const ms = parseGoDuration(text) ?? 0;
  return (pod, ctx) => {
    const started = toMillis(pod.status?.startTime);
    return Number.isNaN(started) || ctx.now - started < ms ? `pod is younger than minPodAge ${text}` : undefined;
  };
}

/**
 * DefaultEvictor's nodeFit, over the nodes its nodeSelector picks. Only evictions need
 * somewhere to go: a deleted terminal pod is not rescheduled.
 */
export function nodeFit(candidateSelector: string | undefined): Check {
  const candidate = compileSelectorString(candidateSelector);
  return (pod, ctx) => {
    if (ctx.action !== 'evict') return undefined;
    const nodes = ctx.index.nodes;
    if (!nodes) return 'nodes unknown (nodeFit)';
    for (const [name, node] of nodes) {
      if (name === pod.spec?.nodeName || !candidate(node.metadata.labels)) continue;
      if (fitsNode(pod, node, ctx.index.freeByNode.get(name)!)) return undefined;
    }
    return 'pod fits no other node (nodeFit)';
  };
}
