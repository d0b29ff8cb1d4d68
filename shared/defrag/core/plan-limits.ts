import type { EvictionLimits } from '../../evictor/limits.js';

// The descheduler's eviction limits over a whole defragmentation plan: a node is freed only
// when every move it needs fits what is left, so no plan stops halfway through a node. Per
// node counts evictions from the node a pod leaves. (The evictor's EvictionLimiter takes
// one pod at a time with no way back; a candidate node's moves must be all or nothing.)

export interface Counted {
  pod: number;
  from: number;
}

export class PlanLimits {
  private readonly perNode = new Map<number, number>();
  private readonly perNamespace = new Map<string, number>();

  constructor(
    private readonly limits: EvictionLimits,
    private readonly namespaceOf: (pod: number) => string,
    private readonly nodeName: (node: number) => string,
  ) {}

  private count(moves: readonly Counted[], d: number): void {
    for (const m of moves) {
      const ns = this.namespaceOf(m.pod);
      this.perNode.set(m.from, (this.perNode.get(m.from) ?? 0) + d);
      this.perNamespace.set(ns, (this.perNamespace.get(ns) ?? 0) + d);
    }
  }

  /** Why these moves would break a limit, given `planned` moves already taken; or undefined. */
  refuses(moves: readonly Counted[], planned: number): string | undefined {
    const l = this.limits;
    if (l.total !== undefined && planned + moves.length > l.total) {
      return `needs ${moves.length} evictions; maxNoOfPodsToEvictTotal ${l.total} leaves ${l.total - planned}`;
    }
    this.count(moves, 1);
    let why: string | undefined;
    for (const [node, n] of this.perNode) {
      if (l.perNode !== undefined && n > l.perNode) why ??= `needs ${n} evictions from ${this.nodeName(node)}; maxNoOfPodsToEvictPerNode is ${l.perNode}`;
    }
    for (const [ns, n] of this.perNamespace) {
      if (l.perNamespace !== undefined && n > l.perNamespace)
        why ??= `needs ${n} evictions in namespace ${ns}; maxNoOfPodsToEvictPerNamespace is ${l.perNamespace}`;
    }
    this.count(moves, -1);
    return why;
  }

  take(moves: readonly Counted[]): void {
    this.count(moves, 1);
  }
}
