// Putting an objects pass's reports in the cluster as pod cleanup's are put (cleanup/reports/io/
// write.ts: each applied whole, then the rule's reports in namespaces this pass wrote none for
// deleted, within its scope), keyed by rule and found by the object-rule label, so the two
// families never replace each other's. The writes are kube/reports.ts's: never in a protected
// namespace, for real even under DRY_RUN (a report is a plan's product).
import { replaceReports, type ReplaceScope, type ReportKeys, type ReportsWritten } from '../../../cleanup/reports/io/write.js';
import type { Report } from '../../../cleanup/reports/core/report.js';
import type { ReportWriter } from '../../../kube/reports.js';
import { OBJECT_RULE_LABEL, objectReportSelector } from '../core/names.js';

const RULE_KEYS: ReportKeys = { keyOf: (r) => r.metadata.labels[OBJECT_RULE_LABEL]!, selectorOf: objectReportSelector };

/** Replaces what each of `rules` reported (in `namespaces`, or everywhere) with `reports`. */
export function replaceObjectReports(
  writer: ReportWriter,
  reports: readonly Report[],
  scope: { rules: readonly string[]; namespaces?: readonly string[] },
): Promise<ReportsWritten> {
  const replace: ReplaceScope = { profiles: scope.rules, ...(scope.namespaces ? { namespaces: scope.namespaces } : {}) };
  return replaceReports(writer, reports, replace, RULE_KEYS);
}
