// What pod cleanup's I/O (io/one-pod.ts, io/pass.ts, io/shards.ts, io/context.ts) takes instead
// of the whole process: what it reads, the writer, the brakes, the clock, the logger and its
// settings in the units the code wants. The runtime's targets build it with `handleOf` (from
// pod cleanup's configuration, config.ts, and the process's); the CLI builds it from its flags
// (hosts/cli/handle.ts).
import type { Brakes } from '../brakes/io/brakes.js';
import type { KubeClients } from '../kube/clients.js';
import type { ClusterWriter } from '../kube/writer.js';
import type { Logger } from '../log.js';
import type { Policy } from '../policy/policy.js';
import { policyOf, type Runtime } from '../runtime/runtime.js';

/** Pod cleanup's settings, in the units its code uses. */
export interface PassSettings {
  /** Pods per LIST page (SWEEP_PAGE_SIZE; the CLI's --chunk-size). */
  pageSize: number;
  /** Writes in flight at once (SWEEP_CONCURRENCY). */
  concurrency: number;
  /** A pass's or a shard's time budget (SWEEP_TIME_BUDGET_SECONDS). */
  budgetMs: number;
  /** Removals in one pass with an Event each (SWEEP_EVENTS_PER_PASS). */
  eventsPerPass: number;
  /** Never touched, whatever the policy says. */
  protectedNamespaces: readonly string[];
  /** An Event per action (RECORD_EVENTS). */
  recordEvents: boolean;
  /** Everything through the API server's dry run (DRY_RUN; the CLI's plan). */
  dryRun: boolean;
}

/** The settings pod cleanup's own configuration gives (config.ts `sweepSettingsOf`); the rest are the process's. */
export type SweepSettings = Pick<PassSettings, 'pageSize' | 'concurrency' | 'budgetMs' | 'eventsPerPass'>;

/** What pod cleanup reads: pods (list, get), and the context a policy may ask for. */
export type CleanupReader = Pick<KubeClients, 'core' | 'policy' | 'scheduling' | 'custom' | 'throttle'>;

export interface CleanupHandle {
  settings: PassSettings;
  /** The configured policy as it is now (a ConfigMap source changes it); its brakes hold every pass. */
  policy(): Policy;
  /** Resolves once `reader` is usable (a lazy process loads its client on first need). */
  ready(): Promise<void>;
  readonly reader: CleanupReader;
  /** The one writer (kube/writer.ts); the settings' dry run unless `dryRun` says more. */
  writer(opts?: { dryRun?: boolean }): ClusterWriter;
  /** This process's side of the brakes' ledger; `dryRun` gets one that writes nothing. */
  brakes(opts?: { dryRun?: boolean }): Brakes;
  now(): number;
  log: Logger;
}

/**
 * The handle of a function process: reader, writer, brakes and clock are the runtime's; paging,
 * concurrency, budget and Events per pass are `sweep` (pod cleanup's configuration); the
 * protected namespaces, Events and dry run the process's, which its writer applies too.
 */
export function handleOf(rt: Runtime, sweep: SweepSettings): CleanupHandle {
  const c = rt.config;
  return {
    settings: {
      pageSize: sweep.pageSize,
      concurrency: sweep.concurrency,
      budgetMs: sweep.budgetMs,
      eventsPerPass: sweep.eventsPerPass,
      protectedNamespaces: c.PROTECTED_NAMESPACES,
      recordEvents: c.RECORD_EVENTS,
      dryRun: c.DRY_RUN,
    },
    policy: () => policyOf(rt),
    ready: () => rt.kubeReady(),
    get reader() {
      return rt.clients;
    },
    writer: (opts) => rt.writer(opts),
    brakes: (opts) => rt.brakes(opts),
    now: () => rt.now(),
    log: rt.log,
  };
}
