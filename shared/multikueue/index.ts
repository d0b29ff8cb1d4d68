// MultiKueue cleanup, wired: cascade a manager-side deletion into every worker (jobDeleted),
// sweep what was missed (orphanSweep). The pure part is core/ (which copies are orphans, may
// this copy be deleted, the witness record's rules, job kinds, labels); its I/O io/ (workers
// and their clients, listing, the cascade, the sweep, the witness ConfigMap); its
// configuration config.ts; what it takes from the process handle.ts. Every write goes through
// a ClusterWriter built with that worker's clients (the handle's writer(clients)): DRY_RUN,
// protected namespaces, preconditions, Events.
import type { ClusterWriter } from '../kube/writer.js';
import type { Logger } from '../log.js';
import type { Notifier } from '../notify/notifier.js';
import type { Runtime } from '../runtime/runtime.js';
import type { MultiKueueConfig } from './config.js';
import { multiKueueHandle, type ManagerReader, type MultiKueueHandle, type MultiKueueOverrides } from './handle.js';
import type { JobKind } from './core/kinds.js';
import type { SweepOptions } from './io/sweep.js';
import { Workers, type Worker } from './io/workers.js';

export { readMultiKueueConfig, type MultiKueueConfig } from './config.js';
export {
  multiKueueHandle,
  type ManagerReader,
  type MultiKueueHandle,
  type MultiKueueOverrides,
  type MultiKueueSettings,
  type WorkerWriteClients,
} from './handle.js';
export { cascadeDelete, deleteRemote, type CascadeOutcome, type CascadeResult } from './io/cascade.js';
export { CASCADE_OUTSIDE_BUDGETS } from './io/outside-budgets.js';
export { readManager, sweepWorker, type SweepOptions, type WorkerReport } from './io/sweep.js';
export { orphans, keyOf, kindKey, type OrphanDecision, type OrphanPlan, type WorkerSnapshot, type ManagerSnapshot } from './core/orphans.js';
export { remoteVerdict, type Verdict } from './core/verdict.js';
export { Workers, type Worker } from './io/workers.js';
export { parseKind, matchKind, BATCH_JOB, WORKLOAD, type JobKind } from './core/kinds.js';
export { ORIGIN_LABEL, PREBUILT_WORKLOAD_LABEL, JOB_UID_LABEL, JOB_NAME_LABEL, KUEUE_PODSET_LABEL, QUEUE_NAME_LABEL } from './core/labels.js';
export { notSubmitted } from './core/submitted.js';
export { WITNESS_CONFIGMAP } from '../model/keys.js';

/** MultiKueue's parts for one process, built once at start by a target's setup. */
export interface MultiKueue {
  config: MultiKueueConfig;
  /** The manager's clients: the runtime's own unless requests are counted (benchmarks). */
  manager: ManagerReader;
  workers: Workers;
  kinds: JobKind[];
  /** The writer for one worker, with its clients; undefined when it has none (unreachable, bad credentials). */
  writer(worker: Worker): ClusterWriter | undefined;
  sweepOptions(): SweepOptions;
  log: Logger;
  /** The process's CloudEvents out (notify/notifier.ts). */
  notifier: Notifier;
}

/**
 * A target's setup (a benchmark's with its request counter): the process is read once, into the
 * handle (handle.ts); the parts see only that.
 */
export function multiKueueParts(rt: Runtime, overrides: MultiKueueOverrides = {}): MultiKueue {
  return multiKueuePartsOf(multiKueueHandle(rt, overrides));
}

/** MultiKueue's parts from a handle, however it was built. */
export function multiKueuePartsOf(h: MultiKueueHandle): MultiKueue {
  const c = h.config;
  const manager = h.manager;
  const kinds = c.MULTIKUEUE_JOB_KINDS;
  const workers = new Workers(manager, {
    timeoutMs: h.settings.requestTimeoutMs,
    onRequest: h.settings.onRequest,
    metrics: h.metrics,
    kueueNamespace: c.KUEUE_NAMESPACE,
    configName: c.MULTIKUEUE_CONFIG,
    staticWorkers: c.MULTIKUEUE_WORKERS,
    ttlMs: c.MULTIKUEUE_DISCOVERY_TTL_SECONDS * 1000,
    now: () => h.now(),
  });
  const sweepOptions = (): SweepOptions => ({
    origin: c.MULTIKUEUE_ORIGIN,
    kinds,
    kueueNamespace: c.KUEUE_NAMESPACE,
    propagation: c.MULTIKUEUE_PROPAGATION,
    limit: c.MULTIKUEUE_SWEEP_LIMIT,
    dryRun: h.settings.dryRun,
    notifier: h.notifier,
  });
  const writer = (w: Worker) => (w.api ? h.writer(w.api) : undefined);
  return { config: c, manager, workers, kinds, writer, sweepOptions, log: h.log, notifier: h.notifier };
}
