import { describe, expect, it } from 'vitest';
import { parse } from './live.js';

describe('--report of plan and run against a cluster', () => {
  it.each([
    ['plan', ['--kubeconfig', 'k', '--report'], true],
    ['run', ['--kubeconfig', 'k', '--yes', '--report'], true],
    ['plan', ['--kubeconfig', 'k'], false],
  ] as const)('%s %j: report is %s', (mode, args, report) => {
    const o = parse(mode, [...args], false);
    expect(o !== 'help' && o.report).toBe(report);
  });

  it('is refused with --against: a comparison writes nothing', () => {
    expect(() => parse('plan', ['--kubeconfig', 'k', '--policy', 'new.yaml', '--against', 'old.yaml', '--report'], false)).toThrow(/--report .*--against/);
  });

  it('is refused with --label-selector: a report replaces what its namespace reported, and would hold only the selected pods', () => {
    expect(() => parse('plan', ['--kubeconfig', 'k', '-l', 'app=x', '--report'], false)).toThrow(/--report: .*--label-selector/);
  });
});
