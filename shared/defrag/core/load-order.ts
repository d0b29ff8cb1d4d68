import type { ClusterState } from './state.js';

// Nodes by load, most loaded first, kept ordered as pods move (a pod's move changes two
// nodes a little, so a few neighbour swaps restore the order). MostAllocated prefers the
// most loaded node that fits, so the search finds it near the front and stops early.

export class LoadOrder {
  readonly order: Int32Array;
  readonly loads: Float64Array;
  private readonly pos: Int32Array;

  constructor(private readonly s: ClusterState) {
    this.loads = Float64Array.from(s.nodes, (_, n) => s.load(n));
    this.order = Int32Array.from(s.nodes.keys()).sort((x, y) => (this.before(x, y) ? -1 : this.before(y, x) ? 1 : 0));
    this.pos = new Int32Array(s.nodes.length);
    this.order.forEach((n, i) => (this.pos[n] = i));
    s.onChange = (n) => this.reposition(n);
  }

  /** Ties go to the lower node index, so the order (and the plan) is deterministic. */
  private before(a: number, b: number): boolean {
    return this.loads[a]! > this.loads[b]! || (this.loads[a] === this.loads[b] && a < b);
  }

  private reposition(n: number): void {
    const { order, pos } = this;
    this.loads[n] = this.s.load(n);
    let i = pos[n]!;
    const swap = (j: number) => {
      [order[i], order[j]] = [order[j]!, order[i]!];
      pos[order[i]!] = i;
      pos[order[j]!] = j;
      i = j;
    };
    while (i > 0 && this.before(n, order[i - 1]!)) swap(i - 1);
    while (i < order.length - 1 && this.before(order[i + 1]!, n)) swap(i + 1);
  }
}
