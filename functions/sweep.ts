import { actShard, cleanupParts, runPass, unplannedShard } from '../shared/cleanup/index.js';
import { BadRequestError } from '../shared/serve/handle.js';
import { defineTarget } from '../shared/serve/target.js';

/**
 * `sweep`: a full pass for a schedule (Knative PingSource, Cloud Scheduler, cron + curl).
 * It backs the events up: pods that existed before the bridge started, and changes during a
 * watch gap, produce no events, so only a periodic pass sees them. A pass cut short by
 * transient failures answers 503 with its summary: the scheduler's retry (or the next tick)
 * decides again from what is stored, and an alert on 5xx sees it.
 *
 * With a shard sink (SWEEP_SHARD_SINK or Knative's K_SINK; SWEEP_SHARD_TOPIC on GCP), a pass
 * that selected more than SWEEP_SHARD_SIZE pods acts on the first shard and posts the rest;
 * the broker (or Pub/Sub and Eventarc) brings each shard back to some sweep instance, which
 * takes it here (README "Scale"), if it is one the planner stored within the hour: any other
 * (forged, altered, or replayed after its plan aged past the hour) is answered 422
 * (not 409, which Knative retries) and no pod is read or written.
 */
export const sweep = defineTarget({
  name: 'sweep',
  accepts: {
    ticks: true,
    shards: true,
    plain: 'tick',
    hint: 'sweep takes schedule ticks (dev.knative.sources.ping), its own shards or a plain POST; pod events go to podTerminated',
  },
  needs: { policy: true, cluster: 'at-start' },
  setup: cleanupParts,
  async handle(input, { config, handle: h }) {
    const { budgetMs, eventsPerPass, dryRun } = h.settings;
    if (input.type === 'shard') {
      const unplanned = dryRun ? undefined : await unplannedShard(h.reader.core, config.SWEEP_PLAN_NAMESPACE, input.shard, h.now());
      if (unplanned) throw new BadRequestError(422, unplanned);
      const answer = await actShard(h, input.shard);
      h.log.info({ shard: answer.shard, outcomes: answer.outcomes, failures: answer.failures }, 'sweep shard done');
      return answer;
    }
    const fanOut = config.shardSink ? { sink: config.shardSink, size: config.SWEEP_SHARD_SIZE, planNamespace: config.SWEEP_PLAN_NAMESPACE } : undefined;
    const summary = await runPass(h, { policy: h.policy(), dryRun, budgetMs, eventsPerPass, ...(fanOut ? { fanOut } : {}) });
    const { results, keptPods, failures, ...counts } = summary;
    h.log.info({ sweep: counts, failures }, 'sweep done');
    const complete = failures.transient + failures.refused === 0;
    return { outcome: complete ? 'swept' : 'incomplete', summary: counts, failures, results, kept: keptPods };
  },
});
