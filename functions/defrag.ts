import { defragParts } from '../shared/defrag/index.js';
import { defineTarget } from '../shared/serve/target.js';

/**
 * `defrag`: one defragmentation step per call. A schedule tick (a CloudEvent) verifies the
 * last move and makes the next eviction (when DRY_RUN, it only plans); a plain HTTP call only
 * plans and answers the whole plan with its explanation. Either way a plan writes nothing:
 * every write goes through the writer with dryRun=All. The gate and the limits are the
 * configured policy's (first profile's DefaultEvictor).
 */
export const defrag = defineTarget({
  name: 'defrag',
  accepts: { ticks: true, plain: 'body', hint: 'defrag takes schedule ticks (dev.knative.sources.ping), or a plain POST for a plan' },
  needs: { policy: true, cluster: 'at-start' },
  setup: defragParts,
  async handle(input, parts) {
    const dryRun = input.type !== 'tick' || parts.dryRun;
    return { ...(await parts.step({ dryRun })), dryRun };
  },
  observe(answer, metrics) {
    metrics.record('defragSteps', 1, { outcome: answer.outcome });
    if (typeof answer.nodesFreed === 'number' && answer.nodesFreed > 0) metrics.record('defragNodesFreed', answer.nodesFreed);
  },
});
