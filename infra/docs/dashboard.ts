// docs/reference/dashboard.md: the chart's Grafana dashboard panel by panel, and its alert rules,
// from the files the chart ships (infra/helm/kube-tidy/files/). A screenshot needs a Grafana
// and a browser; this is what the panels show, in words and queries, with their layout drawn
// (dashboard-svg.ts), kept current by the test.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { code, generatedBanner, table } from './markdown.js';

const FILES = 'infra/helm/kube-tidy/files';

interface Panel {
  type: string;
  title: string;
  description?: string;
  targets?: { expr: string }[];
}
interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: { severity?: string };
  annotations?: { description?: string };
}

/** Rows of panels under their row headings, in the dashboard's order. */
function panelLines(panels: Panel[]): string[] {
  const out: string[] = [];
  let rows: string[][] = [];
  const flush = () => {
    if (rows.length) out.push(table(['panel', 'shows', 'queries'], rows), '');
    rows = [];
  };
  for (const p of panels) {
    if (p.type === 'row') {
      flush();
      out.push(`### ${p.title}`, '');
    } else rows.push([p.title, `${p.type}. ${p.description ?? ''}`, (p.targets ?? []).map((t) => code(t.expr.trim())).join('<br>')]);
  }
  flush();
  return out;
}

export function dashboardPage(root: string): string {
  const dashboard = JSON.parse(readFileSync(join(root, FILES, 'dashboard.json'), 'utf8')) as { title: string; description?: string; panels: Panel[] };
  const alerts = parse(readFileSync(join(root, FILES, 'alerts.yaml'), 'utf8')) as { groups: { rules: Rule[] }[] };
  const rules = alerts.groups.flatMap((g) => g.rules);
  return [
    generatedBanner(`${FILES}/dashboard.json and ${FILES}/alerts.yaml`),
    '',
    '# The dashboard and the alerts',
    '',
    `The chart's Grafana dashboard, "${dashboard.title}", panel by panel, and its Prometheus alert rules (\`observability.dashboard.enabled\`, \`observability.prometheusRule.enabled\`: [deploying](../deploying.md#helm-either-mode)). ${dashboard.description ?? ''} The metrics they read: [metrics](metrics.md).`,
    '',
    '## Panels',
    '',
    "![The dashboard's panels as laid out in dashboard.json (generated; not a screenshot)](dashboard.svg)",
    '',
    ...panelLines(dashboard.panels),
    '## Alerts',
    '',
    table(
      ['alert', 'severity', 'for', 'when', 'meaning'],
      rules.map((r) => [r.alert, r.labels?.severity ?? '', r.for ?? '', code(r.expr.trim()), r.annotations?.description ?? '']),
    ),
    '',
  ].join('\n');
}
