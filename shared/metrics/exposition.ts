// The Prometheus exposition a process serves on /metrics (standalone mode): the text format
// (version 0.0.4) of everything recorded since the process started. The standalone server
// (issue 16, chart) serves it; the first scrape loads the SDK (record.ts).
import { loadSdk } from './record.js';

export interface Exposition {
  contentType: string;
  body: string;
}

export async function metricsExposition(): Promise<Exposition> {
  const sdk = await loadSdk();
  return { contentType: 'text/plain; version=0.0.4; charset=utf-8', body: await sdk.scrape() };
}
