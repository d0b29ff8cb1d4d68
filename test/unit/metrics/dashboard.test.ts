import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { exportedSeriesNames } from '../../../shared/metrics/catalogue.js';
import { checkRules, metricNames } from '../../fixtures/metrics/promcheck.js';

// The chart's dashboard and alert rules against what kube-tidy exports: every query parsed by
// Prometheus's own PromQL parser (promcheck), and each metric it names is in the catalogue.
// A panel or an alert that names a metric nobody exports shows nothing and never fires.

const FILES = fileURLToPath(new URL('../../../infra/helm/kube-tidy/files/', import.meta.url));
const dashboard = JSON.parse(readFileSync(`${FILES}dashboard.json`, 'utf8')) as {
  panels: { title: string; targets?: { expr: string }[] }[];
  templating: { list: { name: string; query?: string | { query: string } }[] };
};
const alerts = parse(readFileSync(`${FILES}alerts.yaml`, 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };

// Grafana's own variables are not PromQL: its durations become one, its label_values() a selector.
function asPromql(expr: string): string {
  const labelValues = /^label_values\((.+),\s*[a-zA-Z_]\w*\)$/.exec(expr.trim());
  return (labelValues ? labelValues[1]! : expr).replace(/\$__(rate_interval|interval|range)/g, '5m');
}

const queries: [string, string][] = [
  ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t): [string, string] => [`panel "${p.title}"`, t.expr])),
  ...dashboard.templating.list.filter((v) => v.query && typeof v.query === 'object').map((v): [string, string] => [`variable ${v.name}`, (v.query as { query: string }).query]),
];
const rules = alerts.groups.flatMap((g) => g.rules.map((r): [string, string] => [`alert ${r.alert}`, r.expr]));

const exported = new Set(exportedSeriesNames());

describe('the dashboard and the alerts name only metrics kube-tidy exports', () => {
  it('has panels and alerts to check', () => {
    expect(queries.length).toBeGreaterThanOrEqual(15);
    expect(rules.length).toBeGreaterThanOrEqual(5);
  });

  it.each([
    ['dashboard', queries],
    ['alerts', rules],
  ])('every %s expression parses and names exported metrics only', (_what, list) => {
    const names = metricNames(list.map(([, e]) => asPromql(e)));
    const unknown = list.flatMap(([where], i) => names[i]!.filter((n) => !exported.has(n)).map((n) => `${where}: ${n}`));
    expect(unknown).toEqual([]);
    // Every expression names at least one metric (a typo in a name is caught above, not hidden).
    expect(names.every((n) => n.length > 0)).toBe(true);
  });

  it('catches a metric that is not exported (the check can fail)', () => {
    const [names] = metricNames([asPromql('sum(rate(descheduler_pods_evicted_total[$__rate_interval]))')]);
    expect(names!.filter((n) => !exported.has(n))).toEqual(['descheduler_pods_evicted_total']);
  });

  it('the failed and blocked spikes are alerted on', () => {
    const exprs = rules.map(([, e]) => e).join('\n');
    expect(exprs).toMatch(/result=~"failed\|refused"/);
    expect(exprs).toMatch(/result="blocked"/);
  });

  it('loads as Prometheus loads rule files (promtool check rules)', () => {
    const checked = checkRules(`${FILES}alerts.yaml`);
    expect(checked.out).toContain(`${rules.length} rules found`);
    expect(checked.ok).toBe(true);
  });
});
