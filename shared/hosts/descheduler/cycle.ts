// One descheduling cycle of `kube-tidy descheduler`: the same full pass as `kube-tidy run`
// (cleanup/io/pass.ts: paginated lists, the policy's limits over the whole cycle, the one
// writer), told as the descheduler tells it: a log line per pod evicted ("Evicted pod", or "in
// dry run mode"), its metrics under its own names (catalogue.ts descheduler*), and the pods a
// maxNoOfPodsToEvict* limit held back counted with the descheduler's own error text.
// A pod that changed between the cycle's read and its write (a crash-looping container's status
// does every restart) is answered stale by the API server (the write is tied to the
// resourceVersion decided on); the descheduler evicts from its informer's copy without that
// precondition, so such a pod goes in its cycle. The pass itself reads it and decides again as
// stored, once, in the same cycle (cleanup/io/one-pod.ts `decidedAgain`), instead of waiting a
// whole --descheduling-interval; under kubeTidy.retention it waits for the next cycle.
import { runPass } from '../../cleanup/index.js';
import type { ActResult } from '../../cleanup/io/act.js';
import type { CleanupHandle } from '../../cleanup/handle.js';
import type { PassSummary } from '../../cleanup/io/pass-summary.js';
import type { Logger } from '../../log.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import type { Policy } from '../../policy/policy.js';
import { LIMIT_REASON } from '../../selection/decide.js';
import type { Decision } from '../../selection/decision.js';

// evictions/errors.go (v0.36.0): the `result` label of a pod a limit held back.
const LIMIT_RESULT: Record<string, string> = {
  [LIMIT_REASON.node!]: 'maximum number of evicted pods per node reached',
  [LIMIT_REASON.namespace!]: 'maximum number of evicted pods per namespace reached',
  [LIMIT_REASON.total!]: 'maximum number of evicted pods per a descheduling cycle reached',
};

export interface CycleParts {
  handle: CleanupHandle;
  policy: Policy;
  dryRun: boolean;
  budgetMs: number;
  log: Logger;
  metrics: MetricsRecorder;
}

export async function runCycle(p: CycleParts): Promise<PassSummary> {
  const started = performance.now();
  const told = tell(p);
  const summary = await runPass(p.handle, {
    policy: p.policy,
    dryRun: p.dryRun,
    budgetMs: p.budgetMs,
    maxResults: 0,
    onResult: told,
    onKept: (kept) => {
      for (const k of kept) {
        const result = LIMIT_RESULT[k.reason];
        if (result) p.metrics.record('deschedulerPodsEvicted', 1, { result, strategy: k.strategy, profile: k.profile, namespace: k.namespace, node: '' });
      }
    },
  });
  const seconds = (performance.now() - started) / 1000;
  p.metrics.record('deschedulerLoopDuration', seconds);
  // One pass decides every strategy of every profile: each is given the pass's duration (catalogue.ts says so).
  for (const profile of p.policy.profiles)
    for (const s of profile.strategies) p.metrics.record('deschedulerStrategyDuration', seconds, { strategy: s.name, profile: profile.name });
  const removed = (summary.outcomes.deleted ?? 0) + (summary.outcomes.evicted ?? 0);
  p.log.info(
    { seconds: Number(seconds.toFixed(3)), podsListed: summary.podsSeen, selected: summary.selected, removed, kept: summary.kept, ...summary.failures },
    p.dryRun ? 'descheduling cycle done (dry run: nothing was changed)' : 'descheduling cycle done',
  );
  return summary;
}

/** The log line of one removal's result, as the descheduler says it. */
function tell(p: CycleParts): (r: ActResult, d: Decision) => void {
  return (r, d) => {
    const pod = { pod: `${r.namespace}/${r.name}`, strategy: d.strategy, profile: d.profile, node: d.node ?? '' };
    if (r.outcome === 'deleted' || r.outcome === 'evicted')
      p.log.info({ ...pod, action: r.action, reason: r.reason }, p.dryRun ? 'Evicted pod in dry run mode' : 'Evicted pod');
    else p.log.warn({ ...pod, outcome: r.outcome, message: r.message }, 'Error evicting pod');
  };
}
