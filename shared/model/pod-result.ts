// One pod's removal as it ended: the one result type of pod cleanup's act stage
// (cleanup/io/stages/act.ts), of what a report lists (reports/core/build.ts `SelectedPod`)
// and of what a CloudEvent carries (notify/types.ts `PodDecision`). A leaf, so the pure cores
// and the shared edges that read a result name this type rather than declaring its shape again.

/** Every way one pod's removal can end, one CloudEvent type each (notify/types.ts). */
export const POD_OUTCOMES = ['deleted', 'evicted', 'blocked', 'gone', 'stale', 'failed', 'refused', 'deferred', 'evacuation-requested', 'evacuating'] as const;
export type PodOutcome = (typeof POD_OUTCOMES)[number];

export interface PodResult {
  namespace: string;
  name: string;
  uid: string;
  strategy: string;
  /** What was done: DELETE for a pod stored Succeeded/Failed, the Eviction API otherwise. */
  action: 'delete' | 'evict';
  /** deleted/evicted: done; blocked: a PodDisruptionBudget said no (try next time); gone: it
   *  was already gone; stale: it changed since it was read (or another pod has the name);
   *  failed: transient, a retry may succeed; refused: the cluster said no for good;
   *  deferred: a brake held it back (nothing was sent; a later pass or event takes it);
   *  evacuation-requested: a running pod its owner marked request-evict-only, not evicted: its
   *  evacuation was requested (the evacuation family live-migrates it); evacuating: one was
   *  already requested or runs, nothing was written. */
  outcome: PodOutcome;
  dryRun: boolean;
  reason: string;
  /** The API server's answer (or the brake's reason, for deferred), when there is one. */
  message?: string;
}
