import { cleanupParts, runPass } from '../shared/cleanup/index.js';
import { policyOf } from '../shared/runtime/runtime.js';
import { defineTarget } from '../shared/serve/target.js';

/**
 * `sweep`: a full pass for a schedule (Knative PingSource, Cloud Scheduler, cron + curl).
 * It backs the events up: pods that existed before the bridge started, and changes during a
 * watch gap, produce no events, so only a periodic pass sees them. A pass cut short by
 * transient failures answers 503 with its summary: the scheduler's retry (or the next tick)
 * decides again from what is stored, and an alert on 5xx sees it.
 */
export const sweep = defineTarget({
  name: 'sweep',
  accepts: { ticks: true, plain: 'tick', hint: 'sweep takes schedule ticks (dev.knative.sources.ping) or a plain POST; pod events go to podTerminated' },
  needs: { policy: true, cluster: 'at-start' },
  setup: cleanupParts,
  async handle(_input, _parts, rt) {
    const summary = await runPass(rt, { policy: policyOf(rt), dryRun: rt.config.DRY_RUN, budgetMs: rt.config.SWEEP_TIME_BUDGET_SECONDS * 1000 });
    const { results, keptPods, failures, ...counts } = summary;
    rt.log.info({ sweep: counts, failures }, 'sweep done');
    const complete = failures.transient + failures.refused === 0;
    return { outcome: complete ? 'swept' : 'incomplete', summary: counts, failures, results, kept: keptPods };
  },
});
