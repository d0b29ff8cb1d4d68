// MultiKueue's parts for one process, built once at start by the target's setup: its
// configuration (config.ts), the manager's clients (with the same timeout as everything
// else) and the worker cache.
import type { Runtime } from '../runtime/runtime.js';
import { apiClients, type ApiClients } from './client.js';
import { readMultiKueueConfig, type MultiKueueConfig } from './config.js';
import type { JobKind } from './kinds.js';
import type { SweepOptions } from './sweep.js';
import { Workers } from './workers.js';

export interface MultiKueue {
  config: MultiKueueConfig;
  manager: ApiClients;
  workers: Workers;
  kinds: JobKind[];
  sweepOptions(): SweepOptions;
}

export interface MultiKueueOverrides {
  /** Counts every API request (manager and workers), for benchmarks. */
  onRequest?: (method: string, url: string) => void;
}

export function multiKueueParts(rt: Runtime, overrides: MultiKueueOverrides = {}): MultiKueue {
  const c = readMultiKueueConfig(rt.env);
  const clientOptions = { timeoutMs: rt.config.REQUEST_TIMEOUT_SECONDS * 1000, onRequest: overrides.onRequest };
  const manager = apiClients(rt.kubeConfig, clientOptions);
  const kinds = c.MULTIKUEUE_JOB_KINDS;
  const workers = new Workers(manager, {
    ...clientOptions,
    kueueNamespace: c.KUEUE_NAMESPACE,
    configName: c.MULTIKUEUE_CONFIG,
    staticWorkers: c.MULTIKUEUE_WORKERS,
    ttlMs: c.MULTIKUEUE_DISCOVERY_TTL_SECONDS * 1000,
    now: () => rt.now(),
  });
  const sweepOptions = (): SweepOptions => ({
    origin: c.MULTIKUEUE_ORIGIN,
    kinds,
    kueueNamespace: c.KUEUE_NAMESPACE,
    propagation: c.MULTIKUEUE_PROPAGATION,
    limit: c.MULTIKUEUE_SWEEP_LIMIT,
    dryRun: rt.config.DRY_RUN,
  });
  return { config: c, manager, workers, kinds, sweepOptions };
}
