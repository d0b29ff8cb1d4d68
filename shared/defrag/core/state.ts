import type { Node, Pod } from '../../model/objects.js';
import { parseQuantity } from '../../model/quantity.js';
import { isReady, matchesNodeSelection, toleratesNode } from '../../evictor/node-fit.js';
import type { AntiAffinityIndex } from './affinity.js';

// The cluster as the search sees it: typed arrays indexed by node and pod, so that checking
// a placement is a handful of number compares (the search tries millions on 5,000 nodes).

/** Pods that share an owner, requests and labels share placement rules: one class. */
export interface PodClass {
  sample: Pod;
  cpu: number;
  mem: number;
  holds: number[];
  matchedBy: number[];
  /** Per node: 0 unknown, 1 the node's labels/taints/state admit the class, 2 they do not. */
  admits?: Int8Array;
}

export type Misfit = 'selection' | 'cpu' | 'memory' | 'pods' | 'anti-affinity';

export class ClusterState {
  readonly cpuCap: Float64Array;
  readonly memCap: Float64Array;
  readonly podCap: Float64Array;
  readonly cpuUsed: Float64Array;
  readonly memUsed: Float64Array;
  readonly podCount: Int32Array;
  /** Not a destination: unschedulable, not ready, empty at the start, or being freed. */
  readonly closed: Uint8Array;
  /** Per term, per domain: pods matching the term / pods holding it. */
  readonly matching: Int32Array[];
  readonly holding: Int32Array[];
  /** Pod indices per node (scheduled, non-terminal pods). */
  readonly onNode: number[][];
  readonly nodeOf: Int32Array;

  constructor(
    readonly nodes: readonly Node[],
    readonly pods: readonly Pod[],
    readonly classOf: Int32Array,
    readonly classes: readonly PodClass[],
    readonly aa: AntiAffinityIndex,
    nodeOf: Int32Array,
  ) {
    const n = nodes.length;
    const cap = (q: string | number | undefined) => (q === undefined ? Infinity : parseQuantity(q) || 0);
    this.cpuCap = Float64Array.from(nodes, (x) => cap(x.status?.allocatable?.cpu));
    this.memCap = Float64Array.from(nodes, (x) => cap(x.status?.allocatable?.memory));
    this.podCap = Float64Array.from(nodes, (x) => cap(x.status?.allocatable?.pods));
    this.cpuUsed = new Float64Array(n);
    this.memUsed = new Float64Array(n);
    this.podCount = new Int32Array(n);
    this.closed = Uint8Array.from(nodes, (x) => (x.spec?.unschedulable || !isReady(x) ? 1 : 0));
    this.matching = aa.terms.map((t) => new Int32Array(aa.topologies[t.topology]!.domains));
    this.holding = aa.terms.map((t) => new Int32Array(aa.topologies[t.topology]!.domains));
    this.onNode = nodes.map(() => []);
    this.nodeOf = new Int32Array(pods.length).fill(-1);
    for (let p = 0; p < pods.length; p++) if (nodeOf[p]! >= 0) this.add(p, nodeOf[p]!);
  }

  /** Called after a node's usage changes (the search keeps its nodes ordered by load). */
  onChange?: (node: number) => void;

  private count(p: number, node: number, delta: number): void {
    const c = this.classes[this.classOf[p]!]!;
    this.cpuUsed[node]! += delta * c.cpu;
    this.memUsed[node]! += delta * c.mem;
    this.podCount[node]! += delta;
    for (const t of c.holds) this.bump(this.holding, t, node, delta);
    for (const t of c.matchedBy) this.bump(this.matching, t, node, delta);
    this.onChange?.(node);
  }

  private bump(table: Int32Array[], term: number, node: number, delta: number): void {
    const d = this.aa.topologies[this.aa.terms[term]!.topology]!.domainOf[node]!;
    if (d >= 0) table[term]![d]! += delta;
  }

  add(p: number, node: number): void {
    this.nodeOf[p] = node;
    this.onNode[node]!.push(p);
    this.count(p, node, 1);
  }

  remove(p: number): number {
    const node = this.nodeOf[p]!;
    const list = this.onNode[node]!;
    list.splice(list.indexOf(p), 1);
    this.nodeOf[p] = -1;
    this.count(p, node, -1);
    return node;
  }

  admits(cls: number, node: number): boolean {
    const c = this.classes[cls]!;
    const a = (c.admits ??= new Int8Array(this.nodes.length));
    if (a[node] === 0) {
      const n = this.nodes[node]!;
      a[node] = matchesNodeSelection(c.sample, n) && toleratesNode(c.sample, n) ? 1 : 2;
    }
    return a[node] === 1;
  }

  /** Why a pod of class `cls` (not on `node`) cannot be placed there now, or undefined. */
  misfit(cls: number, node: number): Misfit | undefined {
    const c = this.classes[cls]!;
    if (this.cpuUsed[node]! + c.cpu > this.cpuCap[node]! + 1e-9) return 'cpu';
    if (this.memUsed[node]! + c.mem > this.memCap[node]! + 1e-3) return 'memory';
    if (this.podCount[node]! + 1 > this.podCap[node]!) return 'pods';
    if (!this.admits(cls, node)) return 'selection';
    const topo = this.aa.topologies;
    for (const t of c.holds) {
      const d = topo[this.aa.terms[t]!.topology]!.domainOf[node]!;
      if (d >= 0 && this.matching[t]![d]! > 0) return 'anti-affinity';
    }
    for (const t of c.matchedBy) {
      const d = topo[this.aa.terms[t]!.topology]!.domainOf[node]!;
      if (d >= 0 && this.holding[t]![d]! > 0) return 'anti-affinity';
    }
    return undefined;
  }

  /** MostAllocated's view: the mean share of cpu and memory requested once the pod is there. */
  scoreAfter(cls: number, node: number): number {
    const c = this.classes[cls]!;
    return this.share(node, c.cpu, c.mem);
  }

  load(node: number): number {
    return this.share(node, 0, 0);
  }

  /** The most a pod of this class can add to any node's score (smallest capacities). */
  maxIncrement(cls: number): number {
    const c = this.classes[cls]!;
    let best = 0;
    for (let n = 0; n < this.nodes.length; n++) best = Math.max(best, this.share(n, c.cpu, c.mem) - this.load(n));
    return best;
  }

  private share(node: number, cpu: number, mem: number): number {
    const a = Number.isFinite(this.cpuCap[node]!) ? (this.cpuUsed[node]! + cpu) / this.cpuCap[node]! : 0;
    const b = Number.isFinite(this.memCap[node]!) ? (this.memUsed[node]! + mem) / this.memCap[node]! : 0;
    return (a + b) / 2;
  }
}
