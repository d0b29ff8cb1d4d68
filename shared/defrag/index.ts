// Defragmentation, wired: plan the moves and swaps that free whole nodes, one eviction per
// step (see docs/defragmentation.md). The pure part is core/ (the planner: build, search,
// bounds, budgets, affinity; the node marks); its I/O io/ (read the cluster, write marks,
// the step); its configuration config.ts; what it takes from the process handle.ts. Every
// write goes through the handle's writer, and every eviction asks the handle's admission port.
import { compileGate } from '../evictor/gate.js';
import { indexSnapshot } from '../selection/snapshot.js';
import type { Runtime } from '../runtime/runtime.js';
import type { DefragConfig } from './config.js';
import { defragHandle, type DefragHandle } from './handle.js';
import type { Cluster } from './io/cluster.js';
import { defragStep, type StepReport } from './io/step.js';
import type { MoveGate } from './core/types.js';

export { planDefrag } from './core/plan.js';
export { defragStep, type StepIo, type StepOptions, type StepReport, type Verified } from './io/step.js';
export { readDefragConfig, type DefragConfig } from './config.js';
export { defragHandle, type DefragHandle, type DefragReader, type DefragSettings } from './handle.js';
export { type Mark, type InFlight } from './core/marks.js';
export { DEFRAG_MARK as MARK, DEFRAG_IN_FLIGHT as IN_FLIGHT, DEFRAG_CORDONED as CORDONED } from '../model/keys.js';
export type * from './core/types.js';

export interface DefragParts {
  config: DefragConfig;
  /** DRY_RUN: every step only plans. */
  dryRun: boolean;
  /** One step with the configured policy's gate and limits; `dryRun`: plan only, whatever DRY_RUN says. */
  step(opts: { dryRun: boolean }): Promise<StepReport>;
}

/** A target's setup: the process is read once, into the handle (handle.ts); the parts see only that. */
export function defragParts(rt: Runtime): DefragParts {
  return defragPartsOf(defragHandle(rt));
}

/** Defragmentation's parts from a handle, however it was built. */
export function defragPartsOf(h: DefragHandle): DefragParts {
  const config = h.config;
  return {
    config,
    dryRun: h.settings.dryRun,
    step({ dryRun }) {
      const now = h.now();
      const policy = h.policy();
      // The configured policy's gate (first profile's DefaultEvictor): may this pod move at all.
      const evictor = policy.profiles[0]?.evictor;
      const gate = evictor
        ? (c: Cluster): MoveGate => {
            const check = compileGate(evictor, indexSnapshot({ pods: c.pods, nodes: c.nodes, pdbs: c.pdbs }), {
              protectedNamespaces: h.settings.protectedNamespaces,
            });
            return (pod) => check(pod, 'evict', now);
          }
        : undefined;
      // The limits within one plan (limits) shape the plan; the admission port holds them across steps.
      return defragStep(
        { clients: h.reader, writer: h.writer({ dryRun }), admission: h.admission({ dryRun }), notifier: h.notifier },
        { now, limits: policy.limits, gate, ...config },
      );
    },
  };
}
