// What defragmentation's parts (index.ts) take instead of the whole process: what a step reads,
// the writer, the admission port its evictions ask, the clock, the configured policy and its
// settings in the units its code wants.
// The runtime's target builds it with `defragHandle`; nothing else of the process reaches the
// family, so a host that has no Runtime (a CLI) can build one from what it has.
import type { KubeClients } from '../kube/clients.js';
import { familyEdges, type FamilyEdges, type FamilySettings } from '../runtime/family-edges.js';
import type { Runtime } from '../runtime/runtime.js';
import { readDefragConfig, type DefragConfig } from './config.js';

/** The process's settings defragmentation obeys: the gate refuses protected namespaces' pods; DRY_RUN plans every step. */
export type DefragSettings = FamilySettings;

/** What a step reads: pods and nodes (core), PodDisruptionBudgets (policy). */
export type DefragReader = Pick<KubeClients, 'core' | 'policy'>;

/**
 * The process's edges (runtime/family-edges.ts) and DEFRAG_*. Its evictions ask `admission`;
 * its steps are counted by its target from the answer (functions/defrag.ts).
 */
export interface DefragHandle extends FamilyEdges<DefragReader> {
  /** DEFRAG_*, in ms and counts (config.ts). */
  config: DefragConfig;
}

/** The handle of a function process: DEFRAG_* from its environment, the rest the runtime's. */
export function defragHandle(rt: Runtime): DefragHandle {
  // Defrag's evictions spend the same ledger as pod cleanup's removals (runtime/family-edges.ts).
  return Object.assign(familyEdges(rt, 'defrag'), { config: readDefragConfig(rt.env) });
}
