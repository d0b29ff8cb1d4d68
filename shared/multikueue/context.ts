// The MultiKueue side of a runtime, built on first use and kept for the process: the
// manager's clients (with the same timeout as everything else) and the worker cache.
import type { Runtime } from '../runtime/runtime.js';
import { apiClients, type ApiClients } from './client.js';
import { parseKind, type JobKind } from './kinds.js';
import type { SweepOptions } from './sweep.js';
import { Workers } from './workers.js';

export interface MultiKueue {
  manager: ApiClients;
  workers: Workers;
  kinds: JobKind[];
  sweepOptions(): SweepOptions;
}

const contexts = new WeakMap<Runtime, MultiKueue>();

export interface MultiKueueOverrides {
  /** Counts every API request (manager and workers), for benchmarks. */
  onRequest?: (method: string, url: string) => void;
}

export function multiKueueOf(rt: Runtime, overrides: MultiKueueOverrides = {}): MultiKueue {
  let mk = contexts.get(rt);
  if (mk) return mk;
  const c = rt.config;
  const clientOptions = { timeoutMs: c.REQUEST_TIMEOUT_SECONDS * 1000, onRequest: overrides.onRequest };
  const manager = apiClients(rt.kubeConfig, clientOptions);
  const kinds = c.MULTIKUEUE_JOB_KINDS.map(parseKind);
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
    dryRun: c.DRY_RUN,
  });
  mk = { manager, workers, kinds, sweepOptions };
  contexts.set(rt, mk);
  return mk;
}
