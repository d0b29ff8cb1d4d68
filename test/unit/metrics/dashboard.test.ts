import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { METRICS, exportedSeriesNames, type MetricDef } from '../../../shared/metrics/catalogue.js';
import { checkRules, metricNames } from '../../fixtures/metrics/promcheck.js';

// The chart's dashboard and alert rules against what kube-tidy exports: every query parsed by
// Prometheus's own PromQL parser (promcheck), and each metric it names is in the catalogue.
// A panel or an alert that names a metric nobody exports shows nothing and never fires.

const FILES = fileURLToPath(new URL('../../../infra/helm/kube-tidy/files/', import.meta.url));
const dashboard = JSON.parse(readFileSync(`${FILES}dashboard.json`, 'utf8')) as {
  panels: { title: string; targets?: { expr: string }[] }[];
  templating: { list: { name: string; query?: string | { query: string } }[] };
};
interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
}
const alerts = parse(readFileSync(`${FILES}alerts.yaml`, 'utf8')) as { groups: { rules: Rule[] }[] };

// Grafana's own variables are not PromQL: its durations become one, its label_values() a selector.
function asPromql(expr: string): string {
  const labelValues = /^label_values\((.+),\s*[a-zA-Z_]\w*\)$/.exec(expr.trim());
  return (labelValues ? labelValues[1]! : expr).replace(/\$__(rate_interval|interval|range)/g, '5m');
}

const queries: [string, string][] = [
  ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t): [string, string] => [`panel "${p.title}"`, t.expr])),
  ...dashboard.templating.list
    .filter((v) => v.query && typeof v.query === 'object')
    .map((v): [string, string] => [`variable ${v.name}`, (v.query as { query: string }).query]),
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
    // The descheduler's deprecated name (hidden since its v0.35): kube-tidy never exports it.
    const [names] = metricNames([asPromql('sum(rate(descheduler_pods_evicted[$__rate_interval]))')]);
    expect(names!.filter((n) => !exported.has(n))).toEqual(['descheduler_pods_evicted']);
  });

  it('the failed and blocked spikes are alerted on', () => {
    const exprs = rules.map(([, e]) => e).join('\n');
    expect(exprs).toMatch(/result=~"failed\|refused"/);
    expect(exprs).toMatch(/result="blocked"/);
  });

  it('a sender being refused is shown and alerted on (issue 23: refusals leave no trace)', () => {
    const rule = alerts.groups.flatMap((g) => g.rules).find((r) => r.alert === 'KubeTidySenderRefused');
    expect(metricNames([rule!.expr])[0]).toEqual(['kube_tidy_requests_total']);
    expect(rule!.expr).toMatch(/code=~"401\|403\|413\|415\|422"/);
    expect(rule!.expr).toMatch(/sum by \(target, code, outcome\)/);
    const panel = dashboard.panels.find((p) => p.title.startsWith('Requests refused'));
    expect(panel?.targets?.map((t) => t.expr).join('\n')).toMatch(/kube_tidy_requests_total\{code=~"4\.\."\}/);
  });

  it('the brakes are alerted on: an abort at once, deferrals that last', () => {
    const rule = (name: string) => alerts.groups.flatMap((g) => g.rules).find((r) => r.alert === name);
    const [aborted, deferring] = [rule('KubeTidyPassAborted'), rule('KubeTidyBudgetDeferring')];
    // Any abort: a person must resume, so no `for` to wait out, and loud.
    expect(aborted?.for).toBeUndefined();
    expect(aborted?.labels?.severity).toBe('critical');
    expect(metricNames([aborted!.expr])[0]).toEqual(['kube_tidy_budget_aborted_total']);
    // Any increase; and a counter's first sample is invisible to increase(), so a series new
    // within the range (a first abort, a new instance) counts with its whole value.
    const flat = aborted!.expr.replace(/\s+/g, ' ').trim();
    expect(flat).toMatch(
      /^sum by \(scope\) \( ?\(kube_tidy_budget_aborted_total unless kube_tidy_budget_aborted_total offset (\w+)\) or increase\(kube_tidy_budget_aborted_total\[\1\]\) ?\) > 0$/,
    );
    // Deferring is the brakes working: only when it lasts, a warning, per budget.
    expect(deferring?.for).toBe('30m');
    expect(deferring?.labels?.severity).toBe('warning');
    expect(deferring!.expr).toMatch(/sum by \(budget, scope\) \(increase\(kube_tidy_budget_deferred_total\[30m\]\)\) > 0/);
  });

  it("every metric kube-tidy exports has a panel (the brakes' deferred, remaining and aborted ones too)", () => {
    const shown = new Set(metricNames(queries.map(([, e]) => asPromql(e))).flat());
    // The descheduler's own names (`kube-tidy descheduler` only) are for its users' dashboards, not this one.
    const missing = Object.values(METRICS)
      .map((m: MetricDef) => m.name)
      .filter((name) => !name.startsWith('descheduler_'))
      .filter((name) => ![name, `${name}_bucket`, `${name}_sum`, `${name}_count`].some((n) => shown.has(n)));
    expect(missing).toEqual([]);
  });

  it('loads as Prometheus loads rule files (promtool check rules)', () => {
    const checked = checkRules(`${FILES}alerts.yaml`);
    expect(checked.out).toContain(`${rules.length} rules found`);
    expect(checked.ok).toBe(true);
  });
});
