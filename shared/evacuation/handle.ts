// What evacuation's parts (index.ts) take instead of the whole process: what it reads, whether
// the cluster serves EvictionRequests, the writer, the admission port, the clock, the logger, its own configuration
// (in ms and counts: config.ts) and pod cleanup's handle for a strategy's second look. The
// runtime's target builds it with `evacuationHandle`; nothing else of the process reaches the
// family, so a host that has no Runtime (a CLI) can build one from what it has.
import { brakesAdmission } from '../brakes/io/admission.js';
import { readPassConfig, sweepSettingsOf } from '../cleanup/config.js';
import { handleOf, type CleanupHandle } from '../cleanup/handle.js';
import type { Admission } from '../kube/admission.js';
import type { KubeClients } from '../kube/clients.js';
import type { ClusterWriter } from '../kube/writer.js';
import type { Logger } from '../log.js';
import type { MetricsRecorder } from '../metrics/recorder.js';
import type { Notifier } from '../notify/notifier.js';
import { policyOf, type Runtime } from '../runtime/runtime.js';
import { readEvacuationConfig, type EvacuationConfig } from './config.js';
import { evictionRequestDiscovery } from './io/eviction-request.js';

/** What evacuation reads: pods and the brakes' ledger and the old slots' ConfigMap (core), KubeVirt's and lifecycle.k8s.io's objects (custom). */
export type EvacuationReader = Pick<KubeClients, 'core' | 'custom'>;

export interface EvacuationHandle {
  /** EVACUATION_*: the machine's settings, the slot limits, the tick's budget, all in ms and counts. */
  config: EvacuationConfig;
  /** Where the brakes' ledger is (BRAKES_NAMESPACE): the slots are kept there (io/slot-store.ts). */
  ledgerNamespace: string;
  readonly reader: EvacuationReader;
  /** Whether lifecycle.k8s.io (KEP-4563) is served: API discovery, asked once per cluster and kept. */
  evictionRequestsServed(): Promise<boolean>;
  /** The one writer (kube/writer.ts): the process's dry run and protected namespaces. */
  writer(): ClusterWriter;
  /**
   * The admission port (kube/admission.ts) an evacuation's first start asks when
   * `config.chargeBudgets`: the policy's limits over the brakes' shared ledger.
   */
  admission(): Admission;
  /** Pod cleanup's view (its policy, reader and clock) for a strategy's request on a request-evict-only pod. */
  cleanup: CleanupHandle;
  now(): number;
  log: Logger;
  /** The process's CloudEvents out (notify/notifier.ts): each evacuation's state written. */
  notifier: Notifier;
  /** The process's metrics recorder (metrics/recorder.ts): discovery's request, slots found unreadable or lost. */
  metrics: MetricsRecorder;
}

/**
 * The handle of a function process: its configuration from the process's environment, the
 * reader, writer, clock and logger the runtime's, discovery bounded by REQUEST_TIMEOUT_SECONDS.
 */
export function evacuationHandle(rt: Runtime): EvacuationHandle {
  const discoveryTimeoutMs = rt.config.REQUEST_TIMEOUT_SECONDS * 1000;
  const served = evictionRequestDiscovery(rt.metrics);
  return {
    config: readEvacuationConfig(rt.env),
    ledgerNamespace: rt.config.BRAKES_NAMESPACE,
    // Read on use: the runtime's clients are there once the cluster is (kubeReady).
    get reader() {
      return rt.clients;
    },
    evictionRequestsServed: () => served(rt.kubeConfig, discoveryTimeoutMs),
    writer: () => rt.writer(),
    // The process's one Brakes (rt.brakes: the process's dry run), so an evacuation spends the
    // same ledger and reservations as pod cleanup's and defrag's removals.
    admission: () => brakesAdmission({ brakes: rt.brakes(), policy: () => policyOf(rt), writer: rt.writer(), log: rt.log, path: 'evacuation' }),
    // Pod cleanup's paging (its context's LISTs) as a pass has it; no Events of its own: a
    // strategy's look at one pod decides, it removes nothing.
    cleanup: handleOf(rt, { ...sweepSettingsOf(readPassConfig(rt.env)), eventsPerPass: 0 }),
    now: () => rt.now(),
    log: rt.log,
    notifier: rt.notifier,
    metrics: rt.metrics,
  };
}
