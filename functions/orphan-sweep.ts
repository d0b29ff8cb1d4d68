import { orphanSweepCompleted } from '../shared/notify/families.js';
import { multiKueueParts, readManager, sweepWorker } from '../shared/multikueue/index.js';
import { defineTarget } from '../shared/serve/target.js';

/**
 * `orphanSweep`: on a schedule, in every worker, delete what the events missed: copies whose
 * manager-side original is gone, and pods orphaned when a copy was deleted without
 * propagation. A separate target from `sweep`: it needs worker credentials and no policy,
 * and runs on its own schedule. One report per worker; an unreachable worker makes the
 * answer 503 after the others were swept.
 */
export const orphanSweep = defineTarget({
  name: 'orphanSweep',
  accepts: { ticks: true, plain: 'tick', hint: 'orphanSweep takes schedule ticks (dev.knative.sources.ping); Job deletions go to jobDeleted' },
  needs: { policy: false, cluster: 'at-start' },
  setup: multiKueueParts,
  async handle(_input, mk) {
    const opts = mk.sweepOptions();
    // The manager first: if it cannot be read, nothing can be proven gone (503, retry).
    const manager = await readManager(mk.manager, opts.kinds);
    const workers = await mk.workers.list();
    const reports = await Promise.all(workers.map((w) => sweepWorker(w, mk.writer(w), manager, opts)));
    const failures = {
      transient: reports.filter((r) => r.outcome === 'unreachable').length,
      refused: reports.filter((r) => r.outcome !== 'swept' && r.outcome !== 'unreachable').length,
    };
    if (failures.transient || failures.refused) mk.workers.invalidate();
    const summary = Object.fromEntries(reports.map((r) => [r.worker, r.outcome === 'swept' ? r.counts : r.outcome]));
    mk.log.info({ orphanSweep: summary, dryRun: opts.dryRun }, 'orphan sweep done');
    const outcome = failures.transient || failures.refused ? 'incomplete' : 'swept';
    orphanSweepCompleted(mk.notifier, { dryRun: opts.dryRun, outcome, counts: { workers: summary, managerRequests: manager.requests }, failures });
    return { outcome, summary, managerRequests: manager.requests, workers: reports, failures };
  },
  observe(answer, metrics) {
    for (const w of answer.workers) {
      metrics.record('workerSweeps', 1, { worker: w.worker, outcome: w.outcome });
      for (const d of w.decisions) metrics.record('orphans', 1, { worker: w.worker, kind: d.kind, result: d.result ?? d.action });
    }
  },
});
