import { EVACUATION_ANNOTATIONS as ANNOTATIONS } from '../../model/keys.js';
import type { Pod } from '../../model/objects.js';
import { podRequests } from '../../evictor/node-fit.js';
import { isTerminal } from '../../model/pod.js';
import { AntiAffinityIndex } from './affinity.js';
import { indexBudgets, type Budget } from './budget.js';
import { ClusterState, type PodClass } from './state.js';
import type { DefragInput, MoveGate } from './types.js';

// From wire objects to the search's compact state, deciding once per pod whether it counts
// (a node is free only when it has none left), and whether and why it may move.

export type Role = 'skip' | 'node-bound' | 'counts';

export interface Built {
  state: ClusterState;
  role: Role[];
  /** Why a counting pod must stay where it is; undefined when it may move. */
  pinned: (string | undefined)[];
  owner: ({ kind: string; name: string; uid: string } | undefined)[];
  budgets: Budget[];
  budgetsOf: number[][];
}

const controllerOf = (pod: Pod) => (pod.metadata.ownerReferences ?? []).find((o) => o.controller);

function roleOf(pod: Pod, nodeKnown: boolean): Role {
  if (isTerminal(pod) || !pod.spec?.nodeName || !nodeKnown) return 'skip';
  const a = pod.metadata.annotations ?? {};
  const source = a['kubernetes.io/config.source'];
  // DaemonSet, mirror and static pods belong to their node: they go when it goes.
  if (controllerOf(pod)?.kind === 'DaemonSet' || a['kubernetes.io/config.mirror'] !== undefined || (source !== undefined && source !== 'api')) {
    return 'node-bound';
  }
  return 'counts';
}

function whyPinned(pod: Pod, gate: MoveGate | undefined, budgets: Budget[], mine: number[]): string | undefined {
  if (!controllerOf(pod)) return 'has no controller, so nothing would recreate it';
  const protectedBy = gate?.(pod);
  if (protectedBy) return `is protected: ${protectedBy}`;
  if (evacuationUnderWay(pod)) return 'is marked request-evict-only and its evacuation is under way: it leaves through that, not a move';
  const aff = pod.spec?.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  if (aff.length > 0) return 'has required pod affinity, which the planner does not model';
  if ((pod.spec?.topologySpreadConstraints ?? []).some((c) => (c.whenUnsatisfiable ?? 'DoNotSchedule') === 'DoNotSchedule')) {
    return 'has a DoNotSchedule topology spread constraint, which the planner does not model';
  }
  // The Eviction API answers 500 for a pod under two budgets; no point planning it.
  if (mine.length > 1) return `is covered by ${mine.length} PodDisruptionBudgets, which the Eviction API refuses`;
  const b = mine.length === 1 ? budgets[mine[0]!]! : undefined;
  if (b && b.allowed < 1) return `PodDisruptionBudget ${b.name} allows no disruption now`;
  return undefined;
}

/**
 * A pod its owner marked request-evict-only whose evacuation was asked for or runs (the same
 * annotations the writer reads, kube/evict-only.ts): it is on its way out already (a step's
 * own earlier move, or anyone's request), and choosing it again would only answer `evacuating`
 * with a node cordoned for nothing, so the plan leaves it where it is until its evacuation ends.
 */
function evacuationUnderWay(pod: Pod): boolean {
  const a = pod.metadata.annotations ?? {};
  return a[ANNOTATIONS.requestEvictOnly] !== undefined && (a[ANNOTATIONS.request] !== undefined || a[ANNOTATIONS.state] !== undefined);
}

export function build(input: DefragInput, gate?: MoveGate): Built {
  // Sorted copies: the plan must not depend on list order from the API server.
  const nodes = [...input.nodes].sort((a, b) => cmp(a.metadata.name, b.metadata.name));
  const nodeIndex = new Map(nodes.map((n, i) => [n.metadata.name ?? '', i]));
  const pods = [...input.pods].sort((a, b) => cmp(a.metadata.namespace, b.metadata.namespace) || cmp(a.metadata.name, b.metadata.name));
  const role = pods.map((p) => roleOf(p, nodeIndex.has(p.spec?.nodeName ?? '')));
  const live = pods.filter((_, i) => role[i] !== 'skip');
  const liveIndex = new Map(live.map((p, i) => [p, i]));
  const { budgets, byPod } = indexBudgets(input.pdbs ?? [], live);

  const aa = new AntiAffinityIndex(nodes);
  const classIds = new Map<string, number>();
  const classes: PodClass[] = [];
  const classOf = new Int32Array(pods.length);
  pods.forEach((pod, i) => {
    if (role[i] === 'skip') return;
    const { cpu, memory } = podRequests(pod);
    const ctl = controllerOf(pod);
    // A controller stamps every pod from one template, so owner + requests + labels pins
    // down the placement rules; pods without one get a class of their own.
    const labels = Object.entries(pod.metadata.labels ?? {}).join(';');
    const key = ctl ? `${ctl.uid}|${cpu}|${memory}|${pod.metadata.namespace}|${labels}` : `pod|${i}`;
    let id = classIds.get(key);
    if (id === undefined) {
      id = classes.length;
      classIds.set(key, id);
      classes.push({ sample: pod, cpu, mem: memory, holds: aa.termsOf(pod), matchedBy: [] });
    }
    classOf[i] = id;
  });
  // Second pass: every term is known now, so matching is complete.
  for (const c of classes) c.matchedBy = aa.matchedBy(c.sample);

  const nodeOf = Int32Array.from(pods, (p, i) => (role[i] === 'skip' ? -1 : nodeIndex.get(p.spec!.nodeName!)!));
  const state = new ClusterState(nodes, pods, classOf, classes, aa, nodeOf);
  const budgetsOf = pods.map((p, i) => (role[i] === 'skip' ? [] : byPod[liveIndex.get(p)!]!));
  const pinned = pods.map((p, i) => (role[i] === 'counts' ? whyPinned(p, gate, budgets, budgetsOf[i]!) : undefined));
  const owner = pods.map((p) => {
    const c = controllerOf(p);
    return c ? { kind: c.kind, name: c.name, uid: c.uid } : undefined;
  });
  return { state, role, pinned, owner, budgets, budgetsOf };
}

function cmp(a: string | undefined, b: string | undefined): number {
  const x = a ?? '';
  const y = b ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}
