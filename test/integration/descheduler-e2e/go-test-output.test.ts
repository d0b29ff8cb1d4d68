import { describe, expect, it } from 'vitest';
import { parseGoTestOutput } from './go-test-output.js';
import { failureExcerpt, unproven } from './report.js';

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

describe('failureExcerpt', () => {
  it('keeps the failure lines and what they continue on, not the progress lines', () => {
    const lines = [
      '    e2e_test.go:1050: Pods not expected to be evicted: [a], pods expected to be evicted: [b]',
      '    e2e_test.go:861: Running kube-tidy: node main.ts descheduler',
      '        apiVersion: descheduler/v1alpha2',
      '    e2e_test.go:861: kube-tidy descheduler failed: exit status 2',
      '        kube-tidy descheduler: policy.yaml:',
      '          profiles[0]: wrong',
      '    e2e_test.go:1506: Waiting for RC pods to disappear, still 0 remaining',
    ];
    expect(failureExcerpt({ name: 'T', status: 'FAIL', lines })).toEqual(lines.slice(3, 6));
    expect(failureExcerpt({ name: 'T', status: 'FAIL', lines: lines.slice(0, 1) }, 1)).toEqual(lines.slice(0, 1));
  });
});

describe('unproven', () => {
  it('takes a pass whose pod list failed for what it is: every pod then counts as evicted', () => {
    const lines = [
      '    e2e_failedpods_test.go:204: Expecting 1 number of pods evicted, got 0 instead',
      '    e2e_test.go:1848: Unable to list pods: client rate limiter Wait returned an error: rate: Wait(n=1) would exceed context deadline',
      '    e2e_failedpods_test.go:202: preRunNames: [a], currentRunNames: [], actualEvictedPodCount: 1',
    ];
    expect(unproven({ name: 'T', status: 'PASS', lines })).toMatch(/^a pod list failed \(e2e_test.go:1848: Unable to list pods/);
    expect(unproven({ name: 'T', status: 'PASS', lines: [lines[0]!, lines[2]!] })).toBeUndefined();
    expect(unproven({ name: 'T', status: 'FAIL', lines })).toBeUndefined();
  });
});
