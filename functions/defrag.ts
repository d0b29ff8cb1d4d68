import type { HttpFunction } from '@google-cloud/functions-framework';
import { compileGate } from '../shared/evictor/gate.js';
import { indexSnapshot } from '../shared/plan/snapshot.js';
import { defragStep } from '../shared/runtime/defrag-step.js';
import { respond } from '../shared/runtime/respond.js';
import type { Runtime } from '../shared/runtime/runtime.js';

/**
 * `defrag`: one defragmentation step per call. A schedule tick (a CloudEvent) verifies the
 * last move and makes the next eviction (through the API server's dry run when DRY_RUN);
 * a plain HTTP call only plans and answers the whole plan with its explanation. The gate and
 * the limits are the configured policy's (first profile's DefaultEvictor).
 */
export function defrag(rt: Runtime): HttpFunction {
  return (req, res) =>
    respond(req, res, rt.log, async () => {
      const tick = req.header('ce-type') !== undefined || (req.header('content-type') ?? '').startsWith('application/cloudevents');
      const policy = rt.policy.current().policy;
      const now = rt.now();
      const evictor = policy.profiles[0]?.evictor;
      const report = await defragStep(rt.clients.core, rt.kubeConfig, {
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
