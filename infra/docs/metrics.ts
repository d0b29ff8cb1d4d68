// docs/reference/metrics.md: every metric from the catalogue the instruments are made from
// (shared/metrics/catalogue.ts).
import { METRICS } from '../../shared/metrics/catalogue.js';
import { code, generatedBanner, table } from './markdown.js';

export function metricsPage(): string {
  const rows = Object.values(METRICS).map((m) => [
    code(m.name),
    m.kind,
    m.labels.map(code).join(', '),
    m.help + ('buckets' in m && m.buckets ? ` Buckets (s): ${m.buckets.join(', ')}.` : ''),
  ]);
  return [
    generatedBanner('shared/metrics/catalogue.ts'),
    '',
    '# Metrics',
    '',
    'Every metric kube-tidy exports, by its Prometheus name (over OTLP a counter is sent without `_total`). How they are exported, the dashboard and the alerts: [observing](../observing.md#metrics).',
    '',
    table(['name', 'kind', 'labels', 'meaning'], rows),
    '',
  ].join('\n');
}
