// What pod cleanup's I/O (io/one-pod.ts, io/pass.ts, io/shards.ts, io/context.ts) takes instead
// of the whole process: what it reads, the writer, the brakes and the admission port every
// removal asks, the clock, the logger and its settings in the units the code wants. The runtime's targets build it with `handleOf` (from
// pod cleanup's configuration, config.ts, and the process's); the CLI builds it from its flags
// (hosts/cli/handle.ts).
import { brakesAdmission } from '../brakes/io/admission.js';
import type { Brakes } from '../brakes/io/brakes.js';
import type { Admission } from '../kube/admission.js';
import type { KubeClients } from '../kube/clients.js';
import type { ClusterWriter } from '../kube/writer.js';
import type { Logger } from '../log.js';
import type { MetricsRecorder } from '../metrics/recorder.js';
import type { Notifier } from '../notify/notifier.js';
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
export type CleanupReader = Pick<KubeClients, 'core' | 'policy' | 'scheduling' | 'custom' | 'throttle' | 'podReads'>;

export interface CleanupHandle {
  settings: PassSettings;
  /** The configured policy as it is now (a ConfigMap source changes it); its brakes hold every pass. */
  policy(): Policy;
  /** Resolves once `reader` is usable (a lazy process loads its client on first need). */
  ready(): Promise<void>;
  readonly reader: CleanupReader;
  /** The one writer (kube/writer.ts); the settings' dry run unless `dryRun` says more. */
  writer(opts?: { dryRun?: boolean }): ClusterWriter;
  /**
   * This process's side of the brakes' ledger; `dryRun` gets one that writes nothing. What is
   * not one removal asks it directly (a pass's abort gate, resume and trip, its settling).
   */
  brakes(opts?: { dryRun?: boolean }): Brakes;
  /** What every removal asks before it is sent, for the ticket the writer settles (kube/admission.ts): `cleanupAdmission`. */
  admission(o: CleanupAdmissionOptions): Admission;
  now(): number;
  log: Logger;
  /** The process's CloudEvents out (notify/notifier.ts): every decision a pass or one pod makes. */
  notifier: Notifier;
  /** The process's metrics recorder (metrics/recorder.ts): each removal, a pass's abort, the due list's refusals and lost state. */
  metrics: MetricsRecorder;
}

export interface CleanupAdmissionOptions {
  /** The side of the ledger it charges: the pass's or the event's `brakes()` (a dry run's is its own object). */
  brakes: Brakes;
  /** `event` (one pod, a shard's, a due act's) or `pass`, which counts and tells its deferrals itself, once at its end. */
  path: 'event' | 'pass';
  /** The limits, by default the policy as it is now; a pass pins the one it began with. */
  policy?: () => Policy;
}

/**
 * Pod cleanup's admission port over `o.brakes`: the brakes' adapter (brakes/io/admission.ts), the
 * one place a removal becomes a ticket for every family. Shared by both handles (this one and
 * the CLI's) so they cannot differ in how a removal is admitted or a deferral told.
 */
export function cleanupAdmission(h: Pick<CleanupHandle, 'policy' | 'writer' | 'log'>, o: CleanupAdmissionOptions): Admission {
  return brakesAdmission({ brakes: o.brakes, policy: o.policy ?? h.policy, writer: h.writer(), log: h.log, path: o.path, tells: o.path !== 'pass' });
}

/**
 * The handle of a function process: reader, writer, brakes and clock are the runtime's; paging,
 * concurrency, budget and Events per pass are `sweep` (pod cleanup's configuration); the
 * protected namespaces, Events and dry run the process's, which its writer applies too.
 */
export function handleOf(rt: Runtime, sweep: SweepSettings): CleanupHandle {
  const c = rt.config;
  const h: CleanupHandle = {
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
    admission: (o) => cleanupAdmission(h, o),
    now: () => rt.now(),
    log: rt.log,
    notifier: rt.notifier,
    metrics: rt.metrics,
  };
  return h;
}
