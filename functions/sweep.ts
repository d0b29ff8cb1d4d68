import type { HttpFunction } from '@google-cloud/functions-framework';
import { decodeIfCloudEvent } from '../shared/events/index.js';
import { runPass } from '../shared/runtime/pass.js';
import { BadRequestError, respond } from '../shared/runtime/respond.js';
import type { Runtime } from '../shared/runtime/runtime.js';

/**
 * `sweep`: a full pass for a schedule (Knative PingSource, Cloud Scheduler, cron + curl).
 * It backs the events up: pods that existed before the bridge started, and changes during a
 * watch gap, produce no events, so only a periodic pass sees them.
 */
export function sweep(rt: Runtime): HttpFunction {
  return (req, res) =>
    respond(req, res, rt.log, async () => {
      const event = decodeIfCloudEvent({ headers: req.headers, body: req.body });
      if (event && event.type !== 'tick') throw new BadRequestError(422, 'sweep takes schedule ticks (dev.knative.sources.ping); pod events go to podTerminated');
      const summary = await runPass(rt, {
        policy: rt.policy.current().policy,
        dryRun: rt.config.DRY_RUN,
        budgetMs: rt.config.SWEEP_TIME_BUDGET_SECONDS * 1000,
      });
      const { results, keptPods, ...counts } = summary;
      rt.log.info({ sweep: counts }, 'sweep done');
      return { body: { outcome: 'swept', summary: counts, results, kept: keptPods, policyWarning: rt.policy.lastError() } };
    });
}
