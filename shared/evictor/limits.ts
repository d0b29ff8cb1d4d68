export interface EvictionLimits {
  perNode?: number;
  perNamespace?: number;
  total?: number;
}

export type LimitHit = 'node' | 'namespace' | 'total';

/**
 * Counts actions across one invocation, as the descheduler's maxNoOfPodsToEvictPer*
 * do. `take` either reserves a slot for the pod or says which limit stands in the way.
 */
export class EvictionLimiter {
  private readonly byNode = new Map<string, number>();
  private readonly byNamespace = new Map<string, number>();
  private count = 0;

  constructor(private readonly limits: EvictionLimits) {}

  totalReached(): boolean {
    return this.limits.total !== undefined && this.count >= this.limits.total;
  }

  /** For a pod in `namespace`, on `node` (none when it was never scheduled). */
  take(namespace: string | undefined, node: string | undefined): LimitHit | undefined {
    if (this.totalReached()) return 'total';
    const ns = namespace ?? '';
    // Pods that were never scheduled belong to no node, so no node limit applies to them.
    if (node && this.limits.perNode !== undefined && (this.byNode.get(node) ?? 0) >= this.limits.perNode) return 'node';
    if (this.limits.perNamespace !== undefined && (this.byNamespace.get(ns) ?? 0) >= this.limits.perNamespace) return 'namespace';
    // Count only what a limit reads: most policies set none, and this runs per decision.
    if (node && this.limits.perNode !== undefined) this.byNode.set(node, (this.byNode.get(node) ?? 0) + 1);
    if (this.limits.perNamespace !== undefined) this.byNamespace.set(ns, (this.byNamespace.get(ns) ?? 0) + 1);
    this.count++;
    return undefined;
  }
}
