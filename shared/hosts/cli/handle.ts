// The CLI's pod-cleanup handle, built from its flags: no environment is read. The writer is the
// one writer (kube/writer.ts) with the dry run of a plan, the protected namespaces of
// --protected-namespaces and the policy's grace period; the brakes are the cluster's ledger
// (ConfigMap kube-tidy-brakes in the namespace the command chose: the deployed kube-tidy's,
// ledger.ts), so a person's run and the deployment share one set of limits.
import { brakesAdmission } from '../../brakes/io/admission.js';
import { Brakes } from '../../brakes/io/brakes.js';
import { DEFAULT_SWEEP_CONCURRENCY } from '../../cleanup/config.js';
import { cleanupAdmission } from '../../cleanup/handle.js';
import type { CleanupHandle, PassSettings } from '../../cleanup/index.js';
import type { KubeClients } from '../../kube/clients.js';
import { WriteRefusals } from '../../kube/write-refusals.js';
import { ClusterWriter, type WriterOptions } from '../../kube/writer.js';
import type { Logger } from '../../log.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import type { Notifier } from '../../notify/notifier.js';
import type { ObjectsHandle } from '../../objects/index.js';
import type { ObjectsReader } from '../../objects/io/read.js';
import type { Policy } from '../../policy/policy.js';

const HOLD_MS = 60_000;

export interface CliHandleOptions {
  clients: KubeClients;
  policy: Policy;
  /** A plan: every write through the API server's dry run. */
  dryRun: boolean;
  /** --chunk-size: pods per LIST page. */
  chunkSize: number;
  protectedNamespaces: readonly string[];
  /** Where the brakes' ledger is (ledger.ts chooseLedger). */
  ledgerNamespace: string;
  /** What is left of --timeout. */
  budgetMs: number;
  log: Logger;
  /** Where the pass's decisions go as CloudEvents (the program's, from its environment: main.ts). */
  notifier: Notifier;
  /** Where the pass's removals, deferrals and API requests are counted (the program's recorder: main.ts). */
  metrics: MetricsRecorder;
  now?: () => number;
  /** How terminal pods go and what the Events say (kube/writer.ts): `kube-tidy descheduler`'s, by its permissions. */
  writerOptions?: Pick<WriterOptions, 'terminalVia' | 'eventStyle' | 'series'>;
  /**
   * The policy the brakes' ledger holds, when not `policy`: `kube-tidy descheduler` without
   * ConfigMap access keeps no ledger and gives one without limits here (the pass still holds
   * `policy`'s limits within itself, one cycle, as the descheduler does).
   */
  ledgerPolicy?: Policy;
}

export function cliHandle(o: CliHandleOptions): CleanupHandle {
  const now = o.now ?? Date.now;
  const settings: PassSettings = {
    pageSize: o.chunkSize,
    concurrency: DEFAULT_SWEEP_CONCURRENCY,
    budgetMs: o.budgetMs,
    // Every removal its own Event: a person's run is small, and each is worth reading.
    eventsPerPass: Number.POSITIVE_INFINITY,
    protectedNamespaces: o.protectedNamespaces,
    recordEvents: true,
    dryRun: o.dryRun,
  };
  // One for the command: refused writes logged where it logs (stderr, never its output), sampled across its writers.
  const refusals = new WriteRefusals(o.metrics, o.log);
  // Which deferrals the command has told, across its brakes (a plan's included).
  const told = new Set<string>();
  const writer = (opts: { dryRun?: boolean } = {}) =>
    new ClusterWriter(o.clients, {
      refusals,
      dryRun: settings.dryRun || opts.dryRun === true,
      recordEvents: settings.recordEvents,
      protectedNamespaces: settings.protectedNamespaces,
      ...(o.policy.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: o.policy.gracePeriodSeconds }),
      ...o.writerOptions,
    });
  const newBrakes = (dryRun: boolean) =>
    new Brakes({
      core: o.clients.core,
      writer: writer({ dryRun }),
      namespace: o.ledgerNamespace,
      holdMs: HOLD_MS,
      dryRun,
      now,
      log: o.log,
      told,
      metrics: o.metrics,
    });
  let brakes: Brakes | undefined;
  const h: CleanupHandle = {
    settings,
    policy: () => o.ledgerPolicy ?? o.policy,
    ready: () => Promise.resolve(),
    reader: o.clients,
    writer,
    // One for the command; a dry run asked of a run gets its own that writes nothing (as the runtime's).
    brakes: (opts = {}) => (opts.dryRun && !settings.dryRun ? newBrakes(true) : (brakes ??= newBrakes(settings.dryRun))),
    // Removals are admitted as the functions' are (cleanup/handle.ts): the same port over these brakes.
    admission: (a) => cleanupAdmission(h, a),
    now,
    log: o.log,
    notifier: o.notifier,
    metrics: o.metrics,
  };
  return h;
}

/**
 * Cleanup beyond pods' handle for the same command (objects/handle.ts), built from its pod
 * cleanup handle: the same writer (a plan's dry run, the protected namespaces), the same
 * Brakes on the same ledger, so the command's pod removals and object deletes spend one
 * budget, each counted under its kind; `own`: kube-tidy's namespace, and how the command knows it.
 */
export function cliObjectsHandle(h: CleanupHandle, reader: ObjectsReader, own?: { namespace: string; from: string }): ObjectsHandle {
  return {
    // A kept object's reason names the setting as the person set it: the flag, not the environment variable.
    settings: {
      protectedNamespaces: h.settings.protectedNamespaces,
      protectedNamespacesFrom: '--protected-namespaces',
      dryRun: h.settings.dryRun,
      // Its deletes in flight as its pod removals.
      concurrency: h.settings.concurrency,
      // The deployed kube-tidy's namespace (live.ts ownNamespaceOf): a ttl rule never deletes it, as the deployment's own never does.
      ...(own ? { ownNamespace: own.namespace, ownNamespaceFrom: own.from } : {}),
    },
    policy: () => h.policy(),
    reader,
    writer: ({ dryRun }) => h.writer({ dryRun }),
    admission: ({ dryRun }) =>
      brakesAdmission({ brakes: h.brakes({ dryRun }), policy: () => h.policy(), writer: h.writer({ dryRun }), log: h.log, path: 'objects' }),
    now: () => h.now(),
    log: h.log,
    notifier: h.notifier,
    metrics: h.metrics,
  };
}
