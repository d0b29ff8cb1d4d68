// What defragmentation's parts (index.ts) take instead of the whole process: what a step reads,
// the writer, the admission port its evictions ask, the clock, the configured policy and its
// settings in the units its code wants.
// The runtime's target builds it with `defragHandle`; nothing else of the process reaches the
// family, so a host that has no Runtime (a CLI) can build one from what it has.
import type { Admission } from '../kube/admission.js';
import type { KubeClients } from '../kube/clients.js';
import type { ClusterWriter } from '../kube/writer.js';
import type { Logger } from '../log.js';
import type { MetricsRecorder } from '../metrics/recorder.js';
import type { Notifier } from '../notify/notifier.js';
import type { Policy } from '../policy/policy.js';
import { familyEdges } from '../runtime/family-edges.js';
import type { Runtime } from '../runtime/runtime.js';
import { readDefragConfig, type DefragConfig } from './config.js';

/** The process's settings defragmentation obeys. */
export interface DefragSettings {
  /** Never moved, whatever the policy says (PROTECTED_NAMESPACES): the gate refuses their pods. */
  protectedNamespaces: readonly string[];
  /** Every step only plans (DRY_RUN). */
  dryRun: boolean;
}

/** What a step reads: pods and nodes (core), PodDisruptionBudgets (policy). */
export type DefragReader = Pick<KubeClients, 'core' | 'policy'>;

export interface DefragHandle {
  /** DEFRAG_*, in ms and counts (config.ts). */
  config: DefragConfig;
  settings: DefragSettings;
  /** The configured policy as it is now (a ConfigMap source changes it): its gate and limits. */
  policy(): Policy;
  readonly reader: DefragReader;
  /** The one writer (kube/writer.ts): the settings' dry run unless `dryRun` says more. */
  writer(opts: { dryRun: boolean }): ClusterWriter;
  /**
   * What every eviction asks first and settles after (kube/admission.ts). `dryRun`: one that
   * writes nothing and defers within the process, as pod cleanup's dry run does.
   */
  admission(opts: { dryRun: boolean }): Admission;
  now(): number;
  log: Logger;
  /** The process's CloudEvents out (notify/notifier.ts): each step's. */
  notifier: Notifier;
  /**
   * The process's metrics recorder (metrics/recorder.ts). Defrag's deferrals are counted by the
   * brakes behind `admission`, its steps by its target from the answer (functions/defrag.ts).
   */
  metrics: MetricsRecorder;
}

/** The handle of a function process: DEFRAG_* from its environment, the rest the runtime's. */
export function defragHandle(rt: Runtime): DefragHandle {
  // Defrag's evictions spend the same ledger as pod cleanup's removals (runtime/family-edges.ts).
  return Object.assign(familyEdges(rt, 'defrag'), { config: readDefragConfig(rt.env) });
}
