// A pass's results as OpenReports: one Report per (namespace, profile), built from what the
// pass streams (each selected pod's result, in the policy's order) and the kept pods it lists.
// Pure and bounded: the collector holds at most `cap` selected and `cap` kept pods per
// report, whatever the pass saw, while the summary counts every one; building then keeps a
// report's results under a byte budget too, since one object must stay well under etcd's
// 1.5 MiB request limit, and says how many it left out.
//
// How a pod reads in a report: selected for removal = `fail` (it violates the cleanup policy:
// in a plan or an audit it would be removed, in a run it was, `properties.outcome` says which);
// selected but the removal could not be carried out (a transient failure, or refused) =
// `error`; a pod a strategy matched but kube-tidy keeps = `skip`, with why. Pods nothing
// matched are not listed (no `pass` results): a report is about what cleanup would do.
//
// What Policy Reporter (its notification targets, its UI) needs of each result, found by running
// it against these reports: a `severity` (a target with a minimum severity drops results
// without one), and a stable `properties.resultID`, which it takes as the result's id instead
// of a hash that includes the message: a reason carries the pod's age, so without it every
// pass would be new results and every target would be told again about the same pods.
import { createHash } from 'node:crypto';
import type { PodResult } from '../../../model/pod-result.js';
import type { Policy } from '../../../policy/policy.js';
import { ANNOTATIONS, OPENREPORTS, reportLabels, reportName } from './names.js';
import type { ObjectReference, Report, ReportResult, ReportSummary, ResultSeverity, ResultStatus } from './report.js';

export const SOURCE = 'kube-tidy';
export const CATEGORY = 'cleanup';
/** Results per Report at most (the summary always counts them all). */
export const MAX_RESULTS_PER_REPORT = 1000;
/** A Report's results stop short of this many bytes of JSON (etcd takes requests up to 1.5 MiB). */
export const MAX_RESULT_BYTES = 1_000_000;
/** A result's message is cut here: a reason and the API server's answer, never megabytes of echo. */
export const MESSAGE_MAX = 1024;

/** audit: the sweep's audit mode; plan/run: invoke or the CLI. */
export type ReportMode = 'audit' | 'plan' | 'run';

/** What the pass says of a selected pod: the one pass result (model/pod-result.ts), with `profile` when the result carries it. */
export type SelectedPod = PodResult & { profile?: string };

/** A pod a strategy matched and kube-tidy keeps (PassSummary.keptPods; uid and profile when known). */
export interface KeptPod {
  namespace: string;
  name: string;
  uid?: string;
  strategy: string;
  profile?: string;
  reason: string;
}

export interface ReportGroup {
  namespace: string;
  profile: string;
  summary: ReportSummary;
  selected: SelectedPod[];
  kept: KeptPod[];
}

const emptySummary = (): ReportSummary => ({ pass: 0, fail: 0, warn: 0, error: 0, skip: 0 });

/** `failed` (transient) and `refused`: the removal was not carried out (act.ts), the rest say what became of a selected pod. */
export const statusOf = (outcome: string): ResultStatus => (outcome === 'failed' || outcome === 'refused' ? 'error' : 'fail');

/** A pod to be removed is `low`, one whose removal failed `medium` (work left undone), a kept one `info`. */
export const SEVERITY: Record<'fail' | 'error' | 'skip', ResultSeverity> = { fail: 'low', error: 'medium', skip: 'info' };

/**
 * The same pod, strategy and status give the same id on every pass (Policy Reporter's
 * `resultID` property): its notification targets tell of a result once, not on every pass.
 */
export function resultId(profile: string, strategy: string, pod: { namespace: string; name: string; uid?: string | undefined }, status: ResultStatus): string {
  const who = pod.uid ?? `${pod.namespace}/${pod.name}`;
  return createHash('sha256').update(`kube-tidy\0${profile}\0${strategy}\0${who}\0${status}`).digest('hex').slice(0, 40);
}

/**
 * The profile a result belongs to when it does not say: the first profile that enables its
 * strategy (a strategy enabled in two profiles is reported under the first).
 */
export function profileByStrategy(policy: Policy): (strategy: string) => string {
  const first = new Map<string, string>();
  for (const p of policy.profiles) for (const s of p.strategies) if (!first.has(s.name)) first.set(s.name, p.name);
  return (strategy) => first.get(strategy) ?? strategy;
}

export interface CollectorOptions {
  /** The profile of a result that does not carry one. */
  profileOf: (strategy: string) => string;
  /** Never reported in: kube-tidy never writes there. */
  protectedNamespaces: readonly string[];
  /** Pods held per report and kind (selected, kept); default MAX_RESULTS_PER_REPORT. */
  cap?: number;
}

export class ReportCollector {
  private readonly groups = new Map<string, ReportGroup>();
  private readonly cap: number;

  constructor(private readonly o: CollectorOptions) {
    this.cap = o.cap ?? MAX_RESULTS_PER_REPORT;
  }

  private group(namespace: string, profile: string): ReportGroup | undefined {
    if (this.o.protectedNamespaces.includes(namespace)) return undefined;
    const key = `${namespace}\0${profile}`;
    let g = this.groups.get(key);
    if (!g) this.groups.set(key, (g = { namespace, profile, summary: emptySummary(), selected: [], kept: [] }));
    return g;
  }

  selected(r: SelectedPod): void {
    const g = this.group(r.namespace, r.profile ?? this.o.profileOf(r.strategy));
    if (!g) return;
    g.summary[statusOf(r.outcome)]++;
    if (g.selected.length < this.cap) g.selected.push(r);
  }

  kept(k: KeptPod): void {
    const g = this.group(k.namespace, k.profile ?? this.o.profileOf(k.strategy));
    if (!g) return;
    g.summary.skip++;
    if (g.kept.length < this.cap) g.kept.push(k);
  }

  /** Every (namespace, profile) with something to report. */
  contents(): readonly ReportGroup[] {
    return [...this.groups.values()];
  }
}

export interface BuildContext {
  pass: string;
  mode: ReportMode;
  /** Epoch ms: every result's timestamp. */
  now: number;
  /** Kept pods the pass did not list (its own cap): said on every report, since they cannot be placed. */
  keptNotListed?: number;
  cap?: number;
}

/** A message within MESSAGE_MAX. */
export const cutMessage = (s: string) => (s.length > MESSAGE_MAX ? `${s.slice(0, MESSAGE_MAX - 3)}...` : s);

/**
 * One result about one object under `policy` and `rule` (a profile and a strategy; for cleanup
 * beyond pods its rule twice): what every result shares (source, category, severity, scored,
 * its stable id first among the properties).
 */
export function reportResult(
  policy: string,
  rule: string,
  resource: ObjectReference,
  status: 'fail' | 'error' | 'skip',
  message: string,
  properties: Record<string, string>,
  timestamp: ReportResult['timestamp'],
): ReportResult {
  return {
    source: SOURCE,
    policy,
    rule,
    category: CATEGORY,
    result: status,
    severity: SEVERITY[status],
    // A kept object is not a finding: it does not count against the policy.
    scored: status !== 'skip',
    timestamp,
    resources: [resource],
    message: cutMessage(message),
    properties: { resultID: resultId(policy, rule, resource, status), ...properties },
  };
}

function selectedResult(g: ReportGroup, r: SelectedPod, c: BuildContext, timestamp: ReportResult['timestamp']): ReportResult {
  const pod = { apiVersion: 'v1', kind: 'Pod', namespace: r.namespace, name: r.name, uid: r.uid };
  // The strategy's reason, then what came of it when the API server (or a brake) said more.
  const message = r.message ? `${r.reason} (${r.outcome}: ${r.message})` : r.reason;
  const properties = { action: r.action, outcome: r.outcome, dryRun: String(r.dryRun), pass: c.pass, mode: c.mode };
  return reportResult(g.profile, r.strategy, pod, statusOf(r.outcome) as 'fail' | 'error', message, properties, timestamp);
}

function keptResult(g: ReportGroup, k: KeptPod, c: BuildContext, timestamp: ReportResult['timestamp']): ReportResult {
  const pod = { apiVersion: 'v1', kind: 'Pod', namespace: k.namespace, name: k.name, ...(k.uid ? { uid: k.uid } : {}) };
  return reportResult(g.profile, k.strategy, pod, 'skip', `kept: ${k.reason}`, { kept: 'true', pass: c.pass, mode: c.mode }, timestamp);
}

/**
 * The results `makers` make, in order, until `cap` results or MAX_RESULT_BYTES of JSON: what
 * comes first (a report's selected objects) is what a capped report keeps.
 */
export function boundedResults(makers: readonly (() => ReportResult)[], cap: number): ReportResult[] {
  const results: ReportResult[] = [];
  let bytes = 0;
  for (const make of makers) {
    if (results.length >= cap) break;
    const r = make();
    bytes += Buffer.byteLength(JSON.stringify(r)) + 1;
    if (bytes > MAX_RESULT_BYTES) break;
    results.push(r);
  }
  return results;
}

/** A Report around bounded results: the summary counts every one, the annotation how many were left out. */
export function reportOf(metadata: Report['metadata'], summary: ReportSummary, results: ReportResult[], cap: number): Report {
  const total = summary.pass + summary.fail + summary.warn + summary.error + summary.skip;
  return {
    apiVersion: `${OPENREPORTS.group}/${OPENREPORTS.version}` as const,
    kind: OPENREPORTS.kind,
    metadata: { ...metadata, annotations: { ...metadata.annotations, [ANNOTATIONS.leftOut]: String(total - results.length) } },
    source: SOURCE,
    configuration: { limits: { maxResults: cap } },
    summary: { ...summary },
    results,
  };
}

/** One Report per collected (namespace, profile): selected pods first, then kept ones, within the caps. */
export function buildReports(groups: readonly ReportGroup[], c: BuildContext): Report[] {
  const cap = c.cap ?? MAX_RESULTS_PER_REPORT;
  const timestamp = { seconds: Math.floor(c.now / 1000), nanos: 0 };
  return groups.map((g) => {
    const results = boundedResults(
      [...g.selected.map((r) => () => selectedResult(g, r, c, timestamp)), ...g.kept.map((k) => () => keptResult(g, k, c, timestamp))],
      cap,
    );
    const metadata = {
      name: reportName(g.profile),
      namespace: g.namespace,
      labels: reportLabels(g.profile),
      annotations: {
        [ANNOTATIONS.policy]: g.profile,
        [ANNOTATIONS.pass]: c.pass,
        [ANNOTATIONS.mode]: c.mode,
        ...(c.keptNotListed ? { [ANNOTATIONS.keptNotListed]: String(c.keptNotListed) } : {}),
      },
    };
    return reportOf(metadata, g.summary, results, cap);
  });
}
