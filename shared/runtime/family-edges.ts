// What every family's handle takes of a function process alike (defrag/handle.ts,
// objects/handle.ts): the settings every write obeys, the configured policy, the clients, the
// one writer, the admission port over the process's one Brakes (a plan-only call gets a Brakes
// that writes nothing), the clock, the logger, the CloudEvents out and the metrics. A family adds
// its own configuration beside them.
import { brakesAdmission } from '../brakes/io/admission.js';
import type { Admission } from '../kube/admission.js';
import type { KubeClients } from '../kube/clients.js';
import type { ClusterWriter } from '../kube/writer.js';
import type { Logger } from '../log.js';
import type { DeferralPath } from '../metrics/observe.js';
import type { MetricsRecorder } from '../metrics/recorder.js';
import type { Notifier } from '../notify/notifier.js';
import type { Policy } from '../policy/policy.js';
import { policyOf, type Runtime } from './runtime.js';

/** The process's settings every family obeys. */
export interface FamilySettings {
  /** Never touched, whatever the policy says (PROTECTED_NAMESPACES). */
  protectedNamespaces: readonly string[];
  /** Where they were set, as the person who set them wrote it (the CLI's `--protected-namespaces`); absent: PROTECTED_NAMESPACES. */
  protectedNamespacesFrom?: string;
  /** Every write only plans (DRY_RUN). */
  dryRun: boolean;
}

/** A family's handle, but its own configuration: `Reader` is what it reads (a subset of the clients). */
export interface FamilyEdges<Reader = KubeClients> {
  settings: FamilySettings;
  /** The configured policy as it is now (a ConfigMap source changes it). */
  policy(): Policy;
  readonly reader: Reader;
  /** The one writer (kube/writer.ts): the settings' dry run unless `dryRun` says more. */
  writer(opts: { dryRun: boolean }): ClusterWriter;
  /** What every removal asks first and settles after (kube/admission.ts). `dryRun`: one that writes nothing and defers within the process. */
  admission(opts: { dryRun: boolean }): Admission;
  now(): number;
  log: Logger;
  /** The process's CloudEvents out (notify/notifier.ts). */
  notifier: Notifier;
  /** The process's metrics recorder (metrics/recorder.ts); deferrals are counted by the brakes behind `admission`. */
  metrics: MetricsRecorder;
}

/** `path`: who asks the brakes, as kube_tidy_budget_deferred_total's label says it. */
export function familyEdges(rt: Runtime, path: DeferralPath): FamilyEdges {
  return {
    settings: { protectedNamespaces: rt.config.PROTECTED_NAMESPACES, dryRun: rt.config.DRY_RUN },
    policy: () => policyOf(rt),
    // Read on use: the runtime's clients are there once the cluster is (kubeReady).
    get reader() {
      return rt.clients;
    },
    writer: (opts) => rt.writer(opts),
    // Every family's removals spend the same ledger and reservations (rt.brakes).
    admission: ({ dryRun }) => brakesAdmission({ brakes: rt.brakes({ dryRun }), policy: () => policyOf(rt), writer: rt.writer({ dryRun }), log: rt.log, path }),
    now: () => rt.now(),
    log: rt.log,
    notifier: rt.notifier,
    metrics: rt.metrics,
  };
}
