import type { Node, NodeSelectorRequirement, Pod, Taint } from '../model/objects.js';
import { isTerminal } from '../model/pod.js';
import { parseQuantity } from '../model/quantity.js';

// DefaultEvictor's nodeFit: would an evicted pod find another node? Checked the way the
// descheduler does (node selector, required node affinity, taints, unschedulable, readiness,
// free cpu/memory), so an eviction never strands a pod that has nowhere to go.

export function isReady(node: Node): boolean {
  return (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function matchesRequirement(labels: Record<string, string>, r: NodeSelectorRequirement): boolean {
  const v = labels[r.key];
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return v !== undefined && values.includes(v);
    case 'NotIn':
      return v === undefined || !values.includes(v);
    case 'Exists':
      return v !== undefined;
    case 'DoesNotExist':
      return v === undefined;
    case 'Gt':
      return v !== undefined && Number(v) > Number(values[0]);
    case 'Lt':
      return v !== undefined && Number(v) < Number(values[0]);
    default:
      return false;
  }
}

export function matchesNodeSelection(pod: Pod, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms && terms.length > 0) {
    // Terms are ORed, expressions inside a term ANDed.
    return terms.some((t) => (t.matchExpressions ?? []).every((r) => matchesRequirement(labels, r)));
  }
  return true;
}

function tolerates(pod: Pod, taint: Taint): boolean {
  return (pod.spec?.tolerations ?? []).some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

export function toleratesNode(pod: Pod, node: Node): boolean {
  return (node.spec?.taints ?? []).filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute').every((t) => tolerates(pod, t));
}

export function podRequests(pod: Pod): { cpu: number; memory: number } {
  let cpu = 0;
  let memory = 0;
  for (const c of pod.spec?.containers ?? []) {
    cpu += parseQuantity(c.resources?.requests?.cpu) || 0;
    memory += parseQuantity(c.resources?.requests?.memory) || 0;
  }
  // Init containers run one at a time: the pod needs the largest of them, if larger.
  for (const c of pod.spec?.initContainers ?? []) {
    cpu = Math.max(cpu, parseQuantity(c.resources?.requests?.cpu) || 0);
    memory = Math.max(memory, parseQuantity(c.resources?.requests?.memory) || 0);
  }
  return { cpu, memory };
}

export interface Resources {
  cpu: number;
  memory: number;
}

/** What `node` has left for another pod next to `pods` (terminal pods hold nothing). */
export function freeOn(node: Node, pods: readonly Pod[]): Resources {
  const alloc = node.status?.allocatable ?? {};
  const free = {
    cpu: alloc.cpu === undefined ? Infinity : parseQuantity(alloc.cpu),
    memory: alloc.memory === undefined ? Infinity : parseQuantity(alloc.memory),
  };
  for (const p of pods) {
    if (isTerminal(p)) continue;
    const r = podRequests(p);
    free.cpu -= r.cpu;
    free.memory -= r.memory;
  }
  return free;
}

/** Whether `pod` could run on `node`, which has `free` left (see freeOn). */
export function fitsNode(pod: Pod, node: Node, free: Resources): boolean {
  if (node.spec?.unschedulable || !isReady(node)) return false;
  if (!matchesNodeSelection(pod, node) || !toleratesNode(pod, node)) return false;
  const want = podRequests(pod);
  // As the descheduler's fitsRequest: only a resource the pod requests is compared, so a pod
  // that requests no memory fits a node whose memory is overcommitted.
  return (want.cpu === 0 || want.cpu <= free.cpu) && (want.memory === 0 || want.memory <= free.memory);
}
