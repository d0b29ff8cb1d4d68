// What MultiKueue's parts (index.ts) take instead of the whole process: the manager it reads,
// the writer for a worker's clients, the clock, the logger, its own configuration and the
// process's settings in the units its code wants. The runtime's targets build it with
// `multiKueueHandle`; nothing else of the process reaches the family, so a host that has no
// Runtime (a CLI) can build one from what it has.
import { kubeClients, type KubeClientOptions, type KubeClients } from '../kube/clients.js';
import type { ClusterWriter, WriterClients } from '../kube/writer.js';
import type { Logger } from '../log.js';
import type { MetricsRecorder } from '../metrics/recorder.js';
import type { Notifier } from '../notify/notifier.js';
import type { Runtime } from '../runtime/runtime.js';
import { readMultiKueueConfig, type MultiKueueConfig } from './config.js';

/** The process's settings MultiKueue obeys. */
export interface MultiKueueSettings {
  /** Every request to a worker (REQUEST_TIMEOUT_SECONDS). */
  requestTimeoutMs: number;
  /** Sweeps report what they would delete (DRY_RUN); the writer writes nothing either way. */
  dryRun: boolean;
  /** Counts every API request, the manager's and the workers' (benchmarks). */
  onRequest?: KubeClientOptions['onRequest'];
}

/** What MultiKueue reads in the manager: MultiKueueCluster Secrets (core), the job kinds and Kueue's objects (custom). */
export type ManagerReader = Pick<KubeClients, 'core' | 'custom'>;

/** What a worker's writer writes through: its deletions, evictions and Events, and the witness ConfigMap. */
export type WorkerWriteClients = WriterClients;

export interface MultiKueueHandle {
  /** MULTIKUEUE_*, KUEUE_NAMESPACE (config.ts). */
  config: MultiKueueConfig;
  settings: MultiKueueSettings;
  readonly manager: ManagerReader;
  /** The one writer (kube/writer.ts) over a worker's clients: the process's dry run, protected namespaces, Events. */
  writer(clients: WorkerWriteClients): ClusterWriter;
  now(): number;
  log: Logger;
  /** The process's CloudEvents out (notify/notifier.ts): each cascade and orphan. */
  notifier: Notifier;
  /** The process's metrics recorder (metrics/recorder.ts): the workers' clients count their API requests in it. */
  metrics: MetricsRecorder;
}

export interface MultiKueueOverrides {
  /** Counts every API request (manager and workers), for benchmarks. */
  onRequest?: (method: string, url: string) => void;
}

/**
 * The handle of a function process: its configuration from the process's environment, the
 * manager's clients, writer, clock and logger the runtime's (the manager's clients of their own
 * when requests are counted).
 */
export function multiKueueHandle(rt: Runtime, overrides: MultiKueueOverrides = {}): MultiKueueHandle {
  const settings: MultiKueueSettings = {
    requestTimeoutMs: rt.config.REQUEST_TIMEOUT_SECONDS * 1000,
    dryRun: rt.config.DRY_RUN,
    ...(overrides.onRequest ? { onRequest: overrides.onRequest } : {}),
  };
  let counted: KubeClients | undefined;
  return {
    config: readMultiKueueConfig(rt.env),
    settings,
    // Read on use: the runtime's clients are there once the cluster is (kubeReady).
    get manager() {
      if (!settings.onRequest) return rt.clients;
      return (counted ??= kubeClients(rt.kubeConfig, { timeoutMs: settings.requestTimeoutMs, onRequest: settings.onRequest, metrics: rt.metrics }));
    },
    writer: (clients) => rt.writer({ clients }),
    now: () => rt.now(),
    log: rt.log,
    notifier: rt.notifier,
    metrics: rt.metrics,
  };
}
