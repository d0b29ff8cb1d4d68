// The Prometheus exposition a process serves on /metrics (standalone mode): the text format
// (version 0.0.4) of everything `metrics` (the recorder its host built) recorded since the
// process started. The standalone server (issue 16, chart) serves it; the first scrape loads
// the SDK (recorder.ts).
import type { MetricsRecorder } from './recorder.js';

export interface Exposition {
  contentType: string;
  body: string;
}

export async function metricsExposition(metrics: MetricsRecorder): Promise<Exposition> {
  const sdk = await metrics.loadSdk();
  return { contentType: 'text/plain; version=0.0.4; charset=utf-8', body: await sdk.scrape() };
}
