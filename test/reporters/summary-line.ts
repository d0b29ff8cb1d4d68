import type { Reporter, TestModule } from 'vitest/node';

// CI reads one plain closing line, "N passed, N failed[, N skipped]"; vitest's own
// summary is decorated, so this reporter prints the counts again, plainly, last.
export default class SummaryLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      let failedHere = 0;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      failed += failedHere;
      // A file that failed to load, or whose beforeAll/afterAll hook failed with every test
      // passing, is a failure all the same.
      if (mod.state() === 'failed' && failedHere === 0) failed++;
    }
    failed += unhandledErrors.length;
    const tail = skipped > 0 ? `, ${skipped} skipped` : '';
    process.stdout.write(`\n${passed} passed, ${failed} failed${tail}\n`);
  }
}
