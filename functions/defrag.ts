import { compileGate } from '../shared/evictor/gate.js';
import { indexSnapshot } from '../shared/plan/snapshot.js';
import { defragStep } from '../shared/runtime/defrag-step.js';
import { policyOf } from '../shared/runtime/runtime.js';
import { defineTarget } from '../shared/serve/target.js';

/**
 * `defrag`: one defragmentation step per call. A schedule tick (a CloudEvent) verifies the
 * last move and makes the next eviction (when DRY_RUN, it only plans); a plain HTTP call only
 * plans and answers the whole plan with its explanation. The gate and the limits are the
 * configured policy's (first profile's DefaultEvictor).
 */
export const defrag = defineTarget({
  name: 'defrag',
  accepts: { ticks: true, plain: 'body', hint: 'defrag takes schedule ticks (dev.knative.sources.ping), or a plain POST for a plan' },
  needs: { policy: true, cluster: 'at-start' },
  setup: () => ({}),
  async handle(input, _parts, rt) {
    const tick = input.type === 'tick';
    const policy = policyOf(rt);
    const now = rt.now();
    const evictor = policy.profiles[0]?.evictor;
    const report = await defragStep(rt.clients, {
      dryRun: !tick || rt.config.DRY_RUN,
      now,
      limits: policy.limits,
      gate: evictor
        ? (c) => {
            const gate = compileGate(evictor, indexSnapshot({ pods: c.pods as never, nodes: c.nodes, pdbs: c.pdbs as never }), { protectedNamespaces: rt.config.PROTECTED_NAMESPACES });
            return (pod) => gate(pod as never, 'evict', now);
          }
        : undefined,
    });
    return { ...report, dryRun: !tick || rt.config.DRY_RUN };
  },
});
