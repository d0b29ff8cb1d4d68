// The Prometheus exposition a process serves on /metrics (standalone mode).
// Placeholder signature agreed between the standalone server (issue 16, chart)
// and the metrics module (issue 16, metrics): the metrics branch replaces the
// body with the real registry's text.
export interface Exposition {
  contentType: string;
  body: string;
}

export async function metricsExposition(): Promise<Exposition> {
  return { contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '' };
}
