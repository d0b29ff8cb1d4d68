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

export interface FamilyEdges {
  settings: { protectedNamespaces: readonly string[]; dryRun: boolean };
  policy(): Policy;
  readonly reader: KubeClients;
  writer(opts: { dryRun: boolean }): ClusterWriter;
  admission(opts: { dryRun: boolean }): Admission;
  now(): number;
  log: Logger;
  notifier: Notifier;
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
