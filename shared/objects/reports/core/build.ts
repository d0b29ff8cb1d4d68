// An objects pass's results as OpenReports: one Report per (namespace, rule), the unit a user
// writes and switches from report to delete. Pure and bounded as pod cleanup's reports are
// (cleanup/reports/core/build.ts: at most MAX_RESULTS_PER_REPORT results and MAX_RESULT_BYTES of
// them, the summary counting every one, an annotation saying how many were left out).
//
// How an object reads in a report: a decision = `fail` (it violates the cleanup rule): a report
// rule's `would remove`, with the rule's reason; a delete rule's `removed` (or, through the API
// server's dry run, `would remove`), or held back (deferred, stale, gone: `properties.outcome`
// says which); a delete that failed or was refused = `error`; an object kept = `skip`, with why
// (an owner rule, a protection, or the re-read before its delete). Decisions first, then kept.
import { boundedResults, MAX_RESULTS_PER_REPORT, reportOf, reportResult, statusOf } from '../../../cleanup/reports/core/build.js';
import type { ObjectReference, Report, ReportResult, ReportSummary, ResultStatus } from '../../../cleanup/reports/core/report.js';
import type { ObjectDecision, ObjectKept } from '../../core/model.js';
import { OBJECT_ANNOTATIONS, objectReportLabels, objectReportName } from './names.js';

/** An object result as the pass has it (objects/io/act.ts ObjectResult). */
export interface ObjectReported {
  decision: ObjectDecision;
  outcome: string;
  dryRun: boolean;
  message?: string;
}

export interface ObjectReportContext {
  /** The rules the pass ran: each names its reports and says its mode. */
  rules: readonly { name: string; mode: 'report' | 'delete' }[];
  /** What ran the pass (sweep, invoke, cli). */
  origin: string;
  /** Epoch ms: every result's timestamp. */
  now: number;
  /** Never reported in: kube-tidy never writes there. */
  protectedNamespaces: readonly string[];
  cap?: number;
}

/** The API version of each kind a rule selects, as the pass reads it (objects/io/read.ts). */
const API_VERSION: Record<string, string> = { Job: 'batch/v1', PersistentVolumeClaim: 'v1', Workload: 'kueue.x-k8s.io/v1beta2' };

/** A ttl rule's object carries its own API version; an objects rule's kind has one. */
const resourceOf = (o: Pick<ObjectDecision, 'kind' | 'namespace' | 'name' | 'uid' | 'apiVersion'>): ObjectReference => ({
  apiVersion: o.apiVersion ?? API_VERSION[o.kind] ?? '',
  kind: o.kind,
  namespace: o.namespace,
  name: o.name,
  uid: o.uid,
});

/** A kept outcome (the re-read before the delete) is not a finding; failed and refused are errors; the rest fail the rule. */
const statusOfObject = (outcome: string): ResultStatus => (outcome === 'kept' ? 'skip' : statusOf(outcome));

/** What the rule removes, said: a Workload's owner names the Workload it takes with it. */
function what(d: ObjectDecision): string {
  const self = `${d.kind} ${d.namespace}/${d.name}`;
  return d.target.uid === d.uid ? self : `${d.target.kind} ${d.target.namespace}/${d.target.name} (the owner of ${self})`;
}

function verb(r: ObjectReported): string {
  if (r.outcome === 'deleted') return r.dryRun ? 'would remove' : 'removed';
  return r.outcome === 'reported' ? 'would remove' : 'to remove';
}

function decidedResult(r: ObjectReported, origin: string, timestamp: ReportResult['timestamp']): ReportResult {
  const d = r.decision;
  const status = statusOfObject(r.outcome) as 'fail' | 'error' | 'skip';
  const said = `${verb(r)} ${what(d)}: ${d.reason}`;
  const message = status === 'skip' ? `kept: ${r.message ?? d.reason}` : r.message ? `${said} (${r.outcome}: ${r.message})` : said;
  const properties: Record<string, string> = {
    mode: d.mode,
    outcome: r.outcome,
    dryRun: String(r.dryRun),
    origin,
    condition: d.condition,
    since: new Date(d.since).toISOString(),
    ...(d.target.uid === d.uid ? {} : { target: `${d.target.apiVersion} ${d.target.kind} ${d.target.name}` }),
  };
  // The rule is the Report's unit and its only rule: policy and rule both name it.
  return reportResult(d.rule, d.rule, resourceOf(d), status, message, properties, timestamp);
}

const keptResult = (k: ObjectKept, origin: string, timestamp: ReportResult['timestamp']): ReportResult =>
  reportResult(k.rule, k.rule, resourceOf(k), 'skip', `kept: ${k.reason}`, { kept: 'true', origin }, timestamp);

interface Group {
  namespace: string;
  rule: string;
  summary: ReportSummary;
  make: (() => ReportResult)[];
}

/** One Report per (namespace, rule) with anything to say, decisions first, within the caps; none in a protected namespace, none outside one. */
export function buildObjectReports(results: readonly ObjectReported[], kept: readonly ObjectKept[], c: ObjectReportContext): Report[] {
  const cap = c.cap ?? MAX_RESULTS_PER_REPORT;
  const timestamp = { seconds: Math.floor(c.now / 1000), nanos: 0 };
  const groups = new Map<string, Group>();
  const add = (o: { namespace: string; rule: string }, status: ResultStatus, make: () => ReportResult) => {
    // A cluster-scoped object of a ttl rule (a ClusterRole; a Namespace reports in itself) has no
    // namespace for a Report: the answer, the CloudEvent and the metric still say it.
    if (o.namespace === '' || c.protectedNamespaces.includes(o.namespace)) return;
    const key = `${o.namespace}\0${o.rule}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { namespace: o.namespace, rule: o.rule, summary: { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 }, make: [] }));
    g.summary[status]++;
    // Makers past the cap are never called: a pass of any size holds plain references only.
    if (g.make.length < cap) g.make.push(make);
  };
  // A Namespace a ttl rule deleted is terminating: nothing new may be written in it (its Report
  // would be refused, and would go with it). The answer, the CloudEvent and the metric say it.
  const inDeleted = (r: ObjectReported) => r.decision.kind === 'Namespace' && r.decision.apiVersion === 'v1' && r.outcome === 'deleted' && !r.dryRun;
  for (const r of results) if (!inDeleted(r)) add(r.decision, statusOfObject(r.outcome), () => decidedResult(r, c.origin, timestamp));
  for (const k of kept) add(k, 'skip', () => keptResult(k, c.origin, timestamp));
  const modeOf = new Map(c.rules.map((r) => [r.name, r.mode]));
  return [...groups.values()].map((g) =>
    reportOf(
      {
        name: objectReportName(g.rule),
        namespace: g.namespace,
        labels: objectReportLabels(g.rule),
        annotations: { [OBJECT_ANNOTATIONS.mode]: modeOf.get(g.rule) ?? 'report', [OBJECT_ANNOTATIONS.origin]: c.origin },
      },
      g.summary,
      boundedResults(g.make, cap),
      cap,
    ),
  );
}
