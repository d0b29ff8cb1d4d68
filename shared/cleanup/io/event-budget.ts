// Kubernetes Events at volume. events.k8s.io's series (one Event whose series.count grows) are
// for one object's repeated occurrence; a sweep removing thousands of pods is thousands of
// objects, and one Event each doubles its requests (measured: 85 -> 63 deletes/s). So a pass
// records a per-pod Event (what `kubectl describe pod` and the descheduler's users expect) for
// its first `perPass` removals, and sums up the rest in one Event per namespace and pass,
// about the Namespace: "kube-tidy removed 4,900 more pods here (PodLifeTime: 4,900)".
import type { ClusterWriter } from '../../kube/writer.js';

export class EventBudget {
  private left: number;
  /** namespace -> strategy -> pods removed without an Event of their own. */
  private readonly unrecorded = new Map<string, Map<string, number>>();

  constructor(perPass: number) {
    this.left = perPass;
  }

  /** Asked once a pod is removed: whether it gets its own Event; if not, it is counted for the summary. */
  take(namespace: string, strategy: string): boolean {
    if (this.left > 0) {
      this.left--;
      return true;
    }
    const byStrategy = this.unrecorded.get(namespace) ?? new Map<string, number>();
    byStrategy.set(strategy, (byStrategy.get(strategy) ?? 0) + 1);
    this.unrecorded.set(namespace, byStrategy);
    return false;
  }

  get summarised(): number {
    let n = 0;
    for (const m of this.unrecorded.values()) for (const c of m.values()) n += c;
    return n;
  }

  /** One Event per namespace for the removals without their own; returns how many were sent. */
  async flush(writer: ClusterWriter, pass: string): Promise<number> {
    let sent = 0;
    for (const [namespace, byStrategy] of this.unrecorded) {
      const total = [...byStrategy.values()].reduce((a, b) => a + b, 0);
      const detail = [...byStrategy].map(([s, n]) => `${s}: ${n}`).join(', ');
      const r = await writer.recordNamespaceEvent(namespace, {
        reason: 'PodsRemoved',
        action: 'Delete',
        type: 'Normal',
        note: `kube-tidy sweep ${pass} removed ${total} more pods in this namespace without an Event each (${detail})`,
        once: `sweep-${pass}`,
      });
      if (r?.recorded) sent++;
    }
    return sent;
  }
}
