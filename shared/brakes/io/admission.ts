// The brakes as the admission port (kube/admission.ts): a removal is admitted with a unit of
// every meter of the policy as it is now (`brakeSetOf`), taken from this process's side of the
// shared ledger (`Brakes.take`), and settled on the API server's answer (`Brakes.done`), so
// what one family removes is spent for every family and instance in the same window; the
// port's tickets (kube/admission.ts `admissionPort`) are settled by the writer, never here. A
// deferral is counted and told here (tell.ts), the same for every family, so a caller cannot
// forget to (a pass counts and tells its own, batched: `tells`). Built per handle by whoever builds the
// family's handle (defrag/handle.ts, cleanup/handle.ts `cleanupAdmission`), from
// the process's one `Brakes` (a plan's own, writing nothing, in a dry run).
import { admissionPort, type Admission } from '../../kube/admission.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { Logger } from '../../log.js';
import type { DeferralPath } from '../../metrics/observe.js';
import type { Policy } from '../../policy/policy.js';
import { brakeSetOf, type Brakes } from './brakes.js';
import { tellDeferral } from './tell.js';

export interface BrakesAdmissionOptions {
  brakes: Pick<Brakes, 'take' | 'done' | 'namespace' | 'told' | 'metrics'>;
  /** The configured policy as it is now (a ConfigMap source changes it): its limits, rates and aborts. */
  policy: () => Policy;
  /** Where a deferral's Event is written (the family's writer: in a dry run, the API server's dry run). */
  writer: ClusterWriter;
  log: Logger;
  /** Who asks, as kube_tidy_budget_deferred_total's `path` says it. */
  path: DeferralPath;
  /**
   * `false`: the caller tells its deferrals itself. A pass does, once at its end per budget
   * with their count (cleanup/io/pass-brakes.ts `finish`), so a pass that defers thousands of
   * pods writes its Event after its ledger requests, not among them.
   */
  tells?: boolean;
}

export function brakesAdmission(o: BrakesAdmissionOptions): Admission {
  return admissionPort({
    async admit(subject, { ahead, pass } = {}) {
      const taken = await o.brakes.take(brakeSetOf(o.policy()), subject, ahead, pass);
      if ('deferred' in taken && o.tells !== false) await tellDeferral(o.writer, o.log, o.brakes, taken.deferred, o.path);
      return taken;
    },
    settle: (ticket, charged) => o.brakes.done(ticket, charged),
  });
}
