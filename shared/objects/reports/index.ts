// Cleanup beyond pods' results as OpenReports, wired: the pure part turns a pass's results and
// kept objects into one Report per (namespace, rule) (core/), the I/O replaces what each rule
// reported with them (io/write.ts, through kube/reports.ts).
//
// A report rule's Reports are its product: write them after every whole pass that ran the rule
// (the sweep, invoke, the CLI). A delete rule's results are reported the same way (what it
// removed, or would through a dry run, and what held it back). Not after an event-path pass
// (`only`): its one object would replace the rule's Reports with a part.
//
//   const reports = new ObjectReports({ rules, origin: 'sweep', protectedNamespaces });
//   const summary = await runObjectsPass(h, { origin: 'sweep', dryRun, rules });
//   const written = await reports.write(h.writer({ dryRun }).reportsClient, summary, h.now());
import { ReportWriter, type ReportsApi } from '../../kube/reports.js';
import type { ReportsWritten } from '../../cleanup/reports/io/write.js';
import type { ObjectsPassSummary } from '../io/pass.js';
import { buildObjectReports } from './core/build.js';
import { replaceObjectReports } from './io/write.js';

export { buildObjectReports, type ObjectReported, type ObjectReportContext } from './core/build.js';
export { objectReportName, objectReportLabels, objectReportSelector, OBJECT_RULE_LABEL, OBJECT_ANNOTATIONS } from './core/names.js';
export { replaceObjectReports } from './io/write.js';
export type { ReportsWritten } from '../../cleanup/reports/io/write.js';

export interface ObjectReportsOptions {
  /** The rules the pass ran (ObjectsPassOptions.rules, or the policy's `kubeTidy.objects`): their reports are replaced, others left alone. */
  rules: readonly { name: string; mode: 'report' | 'delete' }[];
  /** What ran the pass: said on every report and result. */
  origin: 'sweep' | 'invoke' | 'cli';
  protectedNamespaces: readonly string[];
  /** The namespaces the pass was limited to (its reports elsewhere are left alone). */
  namespaces?: readonly string[];
}

/** One objects pass's Reports: built from its summary, written once it is done. */
export class ObjectReports {
  constructor(private readonly o: ObjectReportsOptions) {}

  /** Build from the pass's results and kept objects, and replace what its rules reported. Never throws a Kubernetes error: each failure is counted. */
  async write(custom: ReportsApi, summary: Pick<ObjectsPassSummary, 'results' | 'kept'>, now: number): Promise<ReportsWritten> {
    const reports = buildObjectReports(summary.results, summary.kept, {
      rules: this.o.rules,
      origin: this.o.origin,
      now,
      protectedNamespaces: this.o.protectedNamespaces,
    });
    const writer = new ReportWriter(custom, this.o.protectedNamespaces);
    return replaceObjectReports(writer, reports, { rules: this.o.rules.map((r) => r.name), ...(this.o.namespaces ? { namespaces: this.o.namespaces } : {}) });
  }
}
