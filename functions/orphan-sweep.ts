import type { HttpFunction } from '@google-cloud/functions-framework';
import { decodeIfCloudEvent } from '../shared/events/index.js';
import { multiKueueOf, readManager, sweepWorker } from '../shared/multikueue/index.js';
import { BadRequestError, respond } from '../shared/runtime/respond.js';
import type { Runtime } from '../shared/runtime/runtime.js';

/**
 * `orphanSweep`: on a schedule, in every worker, delete what the events missed: copies whose
 * manager-side original is gone, and pods orphaned when a copy was deleted without
 * propagation. A separate target from `sweep`: it needs worker credentials and no policy,
 * and runs on its own schedule. One report per worker; an unreachable worker makes the
 * answer 503 after the others were swept.
 */
export function orphanSweep(rt: Runtime): HttpFunction {
  return (req, res) =>
    respond(req, res, rt.log, async () => {
      const event = decodeIfCloudEvent({ headers: req.headers, body: req.body });
      if (event && event.type !== 'tick') {
        throw new BadRequestError(422, 'orphanSweep takes schedule ticks (dev.knative.sources.ping); Job deletions go to jobDeleted');
      }
      const mk = multiKueueOf(rt);
      const opts = mk.sweepOptions();
      // The manager first: if it cannot be read, nothing can be proven gone (503, retry).
      const manager = await readManager(mk.manager, opts.kinds);
      const workers = await mk.workers.list();
      const reports = await Promise.all(workers.map((w) => sweepWorker(w, manager, opts)));
      const bad = reports.filter((r) => r.outcome !== 'swept');
      if (bad.length) mk.workers.invalidate();
      const status = bad.some((r) => r.outcome === 'unreachable') ? 503 : bad.length ? 500 : 200;
      const summary = Object.fromEntries(reports.map((r) => [r.worker, r.outcome === 'swept' ? r.counts : r.outcome]));
      rt.log.info({ orphanSweep: summary, dryRun: opts.dryRun }, 'orphan sweep done');
      return { status, body: { outcome: status === 200 ? 'swept' : 'incomplete', dryRun: opts.dryRun, summary, managerRequests: manager.requests, workers: reports } };
    });
}
