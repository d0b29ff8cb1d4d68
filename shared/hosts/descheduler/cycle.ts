// One descheduling cycle of `kube-tidy descheduler`: the same full pass as `kube-tidy run`
// (cleanup/io/pass.ts: paginated lists, the policy's limits over the whole cycle, the one
// writer), told as the descheduler tells it: a log line per pod evicted ("Evicted pod", or "in
// dry run mode"), its metrics under its own names (catalogue.ts descheduler*), and the pods a
// maxNoOfPodsToEvict* limit held back counted with the descheduler's own error text.
// A pod that changed between the cycle's read and its write (a crash-looping container's status
// does every restart) is answered stale by the API server (the write is tied to the
// resourceVersion decided on); the descheduler evicts from its informer's copy without that
// precondition, so such a pod goes in its cycle. Here it is read and decided again as stored,
// in the same cycle, instead of waiting a whole --descheduling-interval.
import { removeSelected, runPass } from '../../cleanup/index.js';
import { failuresOf, resultOf, type ActResult } from '../../cleanup/io/act.js';
import type { OnePodResult } from '../../cleanup/io/results.js';
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

/**
 * How many times a removal answered stale is read, decided and written again within a cycle:
 * client-go's retry.DefaultRetry (5 steps), what RetryOnConflict gives a write that met a newer version.
 */
export const STALE_RETRIES = 5;

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
  const stale: Decision[] = [];
  const told = tell(p);
  const summary = await runPass(p.handle, {
    policy: p.policy,
    dryRun: p.dryRun,
    budgetMs: p.budgetMs,
    maxResults: 0,
    // A stale answer is told once the pod has been decided again (decideAgain). Not with
    // kubeTidy.retention: deciding one pod again may push its owner's older pods out of what
    // retention keeps, and the one-pod path would remove those too, beyond what this cycle's
    // maxNoOfPodsToEvict* counted; such a pod waits for the next cycle, as it did before.
    onResult: (r, d) => (r.outcome === 'stale' && !p.policy.retention?.length ? void stale.push(d) : told(r, d)),
    onKept: (kept) => {
      for (const k of kept) {
        const result = LIMIT_RESULT[k.reason];
        if (result) p.metrics.record('deschedulerPodsEvicted', 1, { result, strategy: k.strategy, profile: k.profile, namespace: k.namespace, node: '' });
      }
    },
  });
  await decideAgain(p, stale, summary, told);
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

/**
 * Each pod whose removal was answered stale, read and decided again as stored and removed if it
 * still is selected (cleanup's one-pod path: the write tied to the stored uid and
 * resourceVersion), up to STALE_RETRIES times while it keeps changing under the write. Only
 * pods the pass already chose within the policy's limits are tried again, so the cycle's
 * maxNoOfPodsToEvict* still hold. `summary` counts what came of them instead of the stale answers.
 */
async function decideAgain(p: CycleParts, stale: readonly Decision[], summary: PassSummary, told: (r: ActResult, d: Decision) => void): Promise<void> {
  for (const d of stale) {
    p.log.debug({ pod: `${d.namespace}/${d.name}`, strategy: d.strategy }, 'Pod changed since the cycle read it: decided again as stored');
    let again: OnePodResult;
    try {
      again = await removeSelected(p.handle, { namespace: d.namespace, name: d.name, uid: d.uid });
      for (let attempt = 1; attempt < STALE_RETRIES && again.result?.outcome === 'stale'; attempt++)
        again = await removeSelected(p.handle, { namespace: d.namespace, name: d.name, uid: d.uid });
    } catch (e) {
      // Its read failed (the API server unreachable, say): left for the next cycle, as a failed write is.
      again = {
        outcome: 'failed',
        pod: `${d.namespace}/${d.name}`,
        why: (e as Error).message,
        result: { ...resultOf(d, p.dryRun), outcome: 'failed', message: (e as Error).message },
      };
    }
    const outcome = again.result?.outcome ?? again.outcome;
    summary.outcomes.stale = (summary.outcomes.stale ?? 1) - 1;
    if (!summary.outcomes.stale) delete summary.outcomes.stale;
    summary.outcomes[outcome] = (summary.outcomes[outcome] ?? 0) + 1;
    const failed = failuresOf(again.result ? [again.result] : []);
    summary.failures.transient += failed.transient;
    summary.failures.refused += failed.refused;
    if (again.result) told(again.result, d);
    else p.log.info({ pod: again.pod, strategy: d.strategy, profile: d.profile, outcome, why: again.why }, 'Pod changed since the cycle read it: not evicted');
  }
}
