// What every target answers, in a leaf that imports nothing: metrics and each family's observe
// read it without reaching up to the target contract in serve/ (and through it the runtime);
// infra/lint/floors.js keeps them from reaching up. A family's I/O returns its own result types
// (pod cleanup's: cleanup/io/results.ts); a target in functions/ answers them as an Answer.
/** What a handler answers; the wrapper adds `target`, `dryRun` and `policyWarning`. */
export interface Answer {
  outcome: string;
  /**
   * Work that did not get done. The one rule for partial failure, for every target: any
   * `transient` (API server or worker unreachable, overloaded, a deadline) answers 503 so the
   * sender retries, which is safe because every write is tied to stored state; else any
   * `refused` (the cluster said no for good: 400, 403, 422) answers 500 with the reasons in
   * the body; else 200.
   */
  failures?: { transient: number; refused: number };
  [field: string]: unknown;
}

export type Failures = { transient: number; refused: number };

/** Work left undone by the steps of one target (a pass, its reports, the objects pass), summed; absent steps add nothing. */
export const sumFailures = (...all: (Failures | undefined)[]): Failures =>
  all.reduce<Failures>((a, f) => (f ? { transient: a.transient + f.transient, refused: a.refused + f.refused } : a), { transient: 0, refused: 0 });
