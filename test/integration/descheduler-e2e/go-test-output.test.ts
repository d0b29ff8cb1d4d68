import { describe, expect, it } from 'vitest';
import { parseGoTestOutput } from './go-test-output.js';

describe('parseGoTestOutput', () => {
  it('reads tests, subtests, durations and the lines each printed; a test cut off has no result', () => {
    const output = [
      '=== RUN   TestA',
      '=== RUN   TestA/one',
      '    e2e_test.go:10: inside one',
      '    --- PASS: TestA/one (1.50s)',
      '=== RUN   TestA/two',
      '    e2e_test.go:11: failing two',
      '    --- FAIL: TestA/two (2.00s)',
      '--- FAIL: TestA (3.75s)',
      '=== RUN   TestB',
      'panic: test timed out after 1m0s',
    ].join('\n');
    const results = parseGoTestOutput(output);
    expect(results.map((r) => [r.name, r.status, r.seconds])).toEqual([
      ['TestA', 'FAIL', 3.75],
      ['TestA/one', 'PASS', 1.5],
      ['TestA/two', 'FAIL', 2],
      ['TestB', 'NO RESULT', undefined],
    ]);
    expect(results[2]!.lines).toEqual(['    e2e_test.go:11: failing two']);
    expect(results[0]!.lines).toContain('    e2e_test.go:10: inside one');
    expect(results[3]!.lines).toEqual(['panic: test timed out after 1m0s']);
  });
});
