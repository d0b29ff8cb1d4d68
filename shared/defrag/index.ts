// Defragmentation, wired: plan the moves and swaps that free whole nodes, one eviction per
// step (see README "Defragmentation"). The pure part is core/ (the planner: build, search,
// bounds, budgets, affinity; the node marks); its I/O io/ (read the cluster, write marks,
// the step); its configuration config.ts. Every write goes through the runtime's writer.
import { compileGate } from '../evictor/gate.js';
import { indexSnapshot } from '../plan/snapshot.js';
import type { Runtime } from '../runtime/runtime.js';
import { readDefragConfig, type DefragConfig } from './config.js';
import type { Cluster } from './io/cluster.js';
import { defragStep, type StepReport } from './io/step.js';
import type { MoveGate } from './core/types.js';
import type { Policy } from '../policy/policy.js';

export { planDefrag } from './core/plan.js';
export { defragStep, type StepIo, type StepOptions, type StepReport, type Verified } from './io/step.js';
export { readDefragConfig, type DefragConfig } from './config.js';
export { MARK, IN_FLIGHT, CORDONED, type Mark, type InFlight } from './core/marks.js';
export type * from './core/types.js';

export interface DefragParts {
  config: DefragConfig;
  /** One step with the policy's gate and limits; `dryRun`: plan only, whatever DRY_RUN says. */
  step(policy: Policy, opts: { dryRun: boolean }): Promise<StepReport>;
}

export function defragParts(rt: Runtime): DefragParts {
  const config = readDefragConfig(rt.env);
  return {
    config,
    step(policy, { dryRun }) {
      const now = rt.now();
      // The configured policy's gate (first profile's DefaultEvictor): may this pod move at all.
      const evictor = policy.profiles[0]?.evictor;
      const gate = evictor
        ? (c: Cluster): MoveGate => {
            const check = compileGate(evictor, indexSnapshot({ pods: c.pods, nodes: c.nodes, pdbs: c.pdbs }), {
              protectedNamespaces: rt.config.PROTECTED_NAMESPACES,
            });
            return (pod) => check(pod, 'evict', now);
          }
        : undefined;
      return defragStep({ clients: rt.clients, writer: rt.writer({ dryRun }) }, { now, limits: policy.limits, gate, ...config });
    },
  };
}
