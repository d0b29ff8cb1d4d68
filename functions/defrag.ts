import type { HttpFunction } from '@google-cloud/functions-framework';
import { compileGate } from '../shared/evictor/gate.js';
import { indexSnapshot } from '../shared/plan/snapshot.js';
import { defragStep } from '../shared/runtime/defrag-step.js';
import { BadRequestError, respond } from '../shared/runtime/respond.js';
import { decodeIfCloudEvent } from '../shared/events/index.js';
import type { Runtime } from '../shared/runtime/runtime.js';

/**
 * `defrag`: one defragmentation step per call. A schedule tick (a CloudEvent) verifies the
 * last move and makes the next eviction (when DRY_RUN, it only plans); any other CloudEvent
 * is refused (422) before anything is read; a plain HTTP call only plans and answers the
 * whole plan with its explanation. The gate and the limits are the configured policy's (first
 * profile's DefaultEvictor).
 */
export function defrag(rt: Runtime): HttpFunction {
  return (req, res) =>
    respond(req, res, rt.log, async () => {
      const event = decodeIfCloudEvent({ headers: req.headers, body: req.body });
      if (event && event.type !== 'tick') throw new BadRequestError(422, 'defrag takes schedule ticks (dev.knative.sources.ping), or a plain POST for a plan');
      const tick = event !== undefined;
      const policy = rt.policy.current().policy;
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
      return { body: { ...report } };
    });
}
