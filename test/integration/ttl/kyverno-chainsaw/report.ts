// chainsaw's JSON report (--report-format JSON; pkg/report/json.go of chainsaw v0.2.12): per
// test its folder, namespace and steps, per step its operations, a failure as the operation's
// error. A test stops at its first failed step, so the steps listed are those that ran.

export interface OperationResult {
  name?: string;
  type?: string;
  failure?: { error?: string };
}
export interface StepResult {
  name?: string;
  operations?: OperationResult[];
}
export interface TestResult {
  basePath?: string;
  name?: string;
  startTime?: string;
  endTime?: string;
  namespace?: string;
  skipped?: boolean;
  steps?: StepResult[];
}
export interface ChainsawReport {
  tests?: TestResult[];
}

/** What one test came to: passed, or the first step that failed with its operation's error. */
export interface Outcome {
  passed: boolean;
  /** The steps that ran, in order. */
  steps: string[];
  failedStep?: string;
  error?: string;
}

export function outcomeOf(test: TestResult): Outcome {
  const steps = (test.steps ?? []).map((s) => s.name ?? '');
  for (const step of test.steps ?? []) {
    const failed = (step.operations ?? []).find((o) => o.failure);
    if (failed) return { passed: false, steps, failedStep: step.name, error: `${failed.type ?? ''}: ${failed.failure?.error ?? ''}` };
  }
  return { passed: !test.skipped, steps };
}

/** The test whose folder ends with `folder` (valid-label, propagation-policy/orphan). */
export const testIn = (report: ChainsawReport, folder: string): TestResult | undefined =>
  (report.tests ?? []).find((t) => (t.basePath ?? '').replace(/\/+$/, '').endsWith(`/${folder}`));
