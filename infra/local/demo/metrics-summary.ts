// The demo's last word: the metrics the functions produced, as received over OTLP (the path
// a serverless deployment uses: an instance scaled to zero cannot be scraped). The demo
// starts a receiver, gives the functions its endpoint, and prints a short summary at the end.
import { startOtlpReceiver } from '../../../test/fixtures/metrics/otlp-receiver.js';

export interface DemoMetrics {
  /** For the functions' environment: where to push. */
  env: Record<string, string>;
  summary(): string;
  close(): Promise<void>;
}

export async function demoMetrics(): Promise<DemoMetrics> {
  const receiver = await startOtlpReceiver();
  /** `name`'s total per value of `label` (largest first), e.g. "success 12, blocked 1". */
  const by = (name: string, label: string | ((l: Record<string, string>) => string), match: Record<string, string> = {}) => {
    const totals = new Map<string, number>();
    for (const p of receiver.points(name)) {
      if (!Object.entries(match).every(([k, v]) => p.labels[k] === v)) continue;
      const key = typeof label === 'string' ? (p.labels[label] ?? '') : label(p.labels);
      totals.set(key, (totals.get(key) ?? 0) + p.value);
    }
    const list = [...totals].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
    return list.length ? list.map(([k, n]) => `${k} ${n}`).join(', ') : 'none';
  };
  return {
    env: { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: receiver.url },
    summary: () =>
      [
        `metrics the functions pushed over OTLP (${receiver.exports.length} exports; the same series a scrape of /metrics shows):`,
        `  kube_tidy_pods_evicted_total        by result: ${by('kube_tidy_pods_evicted', 'result')}`,
        `                                      by action: ${by('kube_tidy_pods_evicted', 'action', { result: 'success' })}`,
        `                                      by strategy: ${by('kube_tidy_pods_evicted', (l) => `${l.profile}/${l.strategy}`, { result: 'success' })}`,
        `                                      by namespace: ${by('kube_tidy_pods_evicted', 'namespace', { result: 'success' })}`,
        `  kube_tidy_requests_total            ${by('kube_tidy_requests', (l) => `${l.target} ${l.code} ${l.outcome}`)}`,
        `  kube_tidy_loop_duration_seconds     passes: ${by('kube_tidy_loop_duration_seconds', 'target')}`,
        `  kube_tidy_api_requests_total        ${by('kube_tidy_api_requests', 'method')}`,
        `  kube_tidy_api_responses_total       ${by('kube_tidy_api_responses', 'code')}`,
      ].join('\n') + '\n',
    close: () => receiver.close(),
  };
}
