// docs/observing.md's metrics table is held to the catalogue (shared/metrics/catalogue.ts): a
// metric added without its row, or a label added without its name in the row, fails here (the
// generated docs/reference/metrics.md lists them all; this is the page people read first).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { declaredNames } from '../../../infra/docs/env.js';
import { DOCS_ROOT } from '../../../infra/docs/generate.js';
import { codeSpans, tableRows } from '../../../infra/docs/tables.js';
import { METRICS } from '../../../shared/metrics/catalogue.js';
import { DEFERRAL_PATHS } from '../../../shared/metrics/observe.js';

const rows = tableRows(readFileSync(join(DOCS_ROOT, 'docs/observing.md'), 'utf8'), ['metric', 'type', 'labels', 'what']);
const byName = new Map(rows.map(([metric = '', type, labels = '']) => [codeSpans(metric)[0], { type, labels: codeSpans(labels).sort() }]));
const what = (name: string) => rows.find(([metric = '']) => codeSpans(metric)[0] === name)?.[3] ?? '';

describe("docs/observing.md's metrics table", () => {
  it.each(Object.values(METRICS).map((m) => [m.name, m] as const))('%s has a row with its type and every label', (name, m) => {
    expect(byName.get(name), `no row for ${name}`).toEqual({ type: m.kind, labels: [...m.labels].sort() });
  });

  it("kube_tidy_budget_deferred_total's row names every path a brake defers on", () => {
    const said = codeSpans(what(METRICS.budgetDeferred.name));
    expect(DEFERRAL_PATHS.filter((p) => !said.includes(p))).toEqual([]);
  });

  it('has no row for a metric kube-tidy does not export', () => {
    const names = new Set<string>(Object.values(METRICS).map((m) => m.name));
    expect([...byName.keys()].filter((n) => !names.has(n!))).toEqual([]);
  });
});

describe("the catalogue's help texts", () => {
  it('name only environment variables kube-tidy declares', () => {
    const declared = declaredNames();
    const named = Object.values(METRICS).flatMap((m) => [...m.help.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)].map((x) => `${m.name}: ${x[0]}`));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((n) => !declared.has(n.split(': ')[1]!))).toEqual([]);
  });
});
