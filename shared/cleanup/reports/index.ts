// Plans and audits as OpenReports (openreports.io/v1alpha1 Report), wired: the pure part turns
// a pass's results into one Report per (namespace, profile) (core/), the I/O replaces what is
// stored with them (io/write.ts through kube/reports.ts). `invoke` with `"report": true`, the
// sweep in audit mode (SWEEP_MODE=audit) and the CLI's `plan --report` use only this.
//
// How to use it with a pass: subscribe it to runPass as an observer (PassOptions.observers:
// every selected pod and every kept one, streamed, so nothing beyond the caps is held), then
// `write` with the pass's summary.
import type { ActResult } from '../io/act.js';
import type { PassObserver, PassSummary } from '../io/pass.js';
import type { ReportsApi } from '../../kube/reports.js';
import { ReportWriter } from '../../kube/reports.js';
import type { Decision } from '../../selection/decision.js';
import type { Policy } from '../../policy/policy.js';
import { buildReports, profileByStrategy, ReportCollector, type KeptPod, type ReportMode } from './core/build.js';
import { replaceReports, type ReportsWritten } from './io/write.js';

export { buildReports, ReportCollector, MAX_RESULTS_PER_REPORT, type ReportMode } from './core/build.js';
export { reportName, reportLabels, reportSelector, policySlug, OPENREPORTS, ANNOTATIONS } from './core/names.js';
export type { Report, ReportResult } from './core/report.js';
export { replaceReports, type ReportsWritten } from './io/write.js';

export interface PassReportsOptions {
  policy: Policy;
  mode: ReportMode;
  protectedNamespaces: readonly string[];
  /** The namespaces the pass is limited to (its reports elsewhere are left alone). */
  namespaces?: readonly string[];
}

/** One pass's reports: collect while it runs (an observer of the pass), write once it is done. */
export class PassReports implements PassObserver {
  private readonly collector: ReportCollector;

  constructor(private readonly o: PassReportsOptions) {
    this.collector = new ReportCollector({ profileOf: profileByStrategy(o.policy), protectedNamespaces: o.protectedNamespaces });
  }

  /** Whether kept pods were streamed (onKept): then the summary's capped list is not read. */
  private streamedKept = false;

  /** Each selected pod's result: the decision names the result's profile. */
  readonly onResult = (r: ActResult, d?: Pick<Decision, 'profile'>): void => this.collector.selected(d ? { ...r, profile: d.profile } : r);

  /**
   * Kept pods as the pass finds them, every one (for a pass option that streams them, as
   * onResult streams results): with it the skip counts are complete, not only the kept pods the
   * pass lists in its answer.
   */
  readonly onKept = (kept: readonly KeptPod[]): void => {
    this.streamedKept = true;
    for (const k of kept) this.collector.kept(k);
  };

  /** Build from what was collected and the summary's kept pods, and replace the stored reports. */
  async write(custom: ReportsApi, summary: Pick<PassSummary, 'pass' | 'kept' | 'keptPods' | 'stoppedBy'>, now: number): Promise<ReportsWritten> {
    if (!this.streamedKept) for (const k of summary.keptPods) this.collector.kept(k);
    const reports = buildReports(this.collector.contents(), {
      pass: summary.pass,
      mode: this.o.mode,
      now,
      ...(this.streamedKept ? {} : { keptNotListed: summary.kept - summary.keptPods.length }),
    });
    const writer = new ReportWriter(custom, this.o.protectedNamespaces);
    // Out of time, the pass did not see every namespace: what it found is written, but no
    // report is deleted for saying nothing (the namespaces it never reached say nothing too).
    const profiles = summary.stoppedBy === 'time-budget' ? [] : this.o.policy.profiles.map((p) => p.name);
    return replaceReports(writer, reports, { profiles, ...(this.o.namespaces ? { namespaces: this.o.namespaces } : {}) });
  }
}
