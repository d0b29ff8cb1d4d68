// An objects pass as one step of a target that also runs pod cleanup (the sweep, invoke): run
// only when the policy has object rules, and a pass that could not read the cluster is counted
// as the target's failure (transient: 503, the sender retries; refused: 500), never thrown
// over the pods' answer, which is already done and stands.
import { classifyKubeError } from '../../kube/errors.js';
import { reportsServed } from '../../kube/reports.js';
import { sumFailures } from '../../model/answer.js';
import type { ObjectsHandle } from '../handle.js';
import { ObjectReports, type ReportsWritten } from '../reports/index.js';
import { objectsAnswer, type ObjectsAnswer } from './answer.js';
import { runObjectsPass, type ObjectsPassOptions, type ObjectsPassSummary } from './pass.js';

export interface ObjectsStepOptions extends ObjectsPassOptions {
  origin: 'sweep' | 'invoke' | 'cli';
  /**
   * Write the rules' OpenReports after the pass (objects/reports): the product of a report rule.
   * `if-served`: the sweep's, by default, only where the OpenReports CRD is installed (a cluster
   * without it still gets the answer, the CloudEvents and the metrics; said in a log line).
   * `true`: asked for (invoke's `report`, the CLI's --report), so a Report not written fails.
   */
  reports: boolean | 'if-served';
}

export interface ObjectsStep {
  /** Absent when the policy has no object rules. */
  answer?: ObjectsAnswer;
  /** What the Reports write did, when asked for. */
  reports?: ReportsWritten;
  summary?: ObjectsPassSummary;
  failures: { transient: number; refused: number };
}

export async function objectsStep(h: ObjectsHandle, o: ObjectsStepOptions): Promise<ObjectsStep> {
  const rules = o.rules ?? h.policy().objects ?? [];
  const ttlRules = o.ttlRules ?? h.policy().ttl ?? [];
  if (rules.length === 0 && ttlRules.length === 0) return { failures: { transient: 0, refused: 0 } };
  try {
    const summary = await runObjectsPass(h, { ...o, rules, ttlRules });
    if (!o.reports) return { answer: objectsAnswer(summary), summary, failures: summary.failures };
    if (o.reports === 'if-served' && !(await reportsServed(h.reader.custom))) {
      h.log.warn({ origin: o.origin }, 'objects: no Reports written: openreports.io is not served here (install the OpenReports CRD to have them)');
      return { answer: { ...objectsAnswer(summary), reportsNotServed: true }, summary, failures: summary.failures };
    }
    // Written apart from the dry run (kube/reports.ts): a plan's Reports are what it would do.
    const reports = await new ObjectReports({
      rules: [...rules, ...ttlRules],
      origin: o.origin,
      protectedNamespaces: h.settings.protectedNamespaces,
      ...(o.namespaces ? { namespaces: o.namespaces } : {}),
    }).write(h.writer({ dryRun: o.dryRun }).reportsClient, summary, h.now());
    // A report not written is work left undone, by the same partial-failure rule.
    return { answer: objectsAnswer(summary), summary, reports, failures: sumFailures(summary.failures, reports.failures) };
  } catch (e) {
    const failure = classifyKubeError(e);
    h.log.warn({ err: (e as Error)?.message ?? String(e), origin: o.origin }, 'objects pass: could not read what the rules name');
    return failure.kind === 'transient' ? { failures: { transient: 1, refused: 0 } } : { failures: { transient: 0, refused: 1 } };
  }
}
