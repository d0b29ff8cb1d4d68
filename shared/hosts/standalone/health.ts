// What the kubelet and Prometheus ask: /healthz (the election loop is still turning: a wedged
// event loop fails it and the kubelet restarts the pod), /readyz (started and not stopping;
// the body says whether this replica leads) and /metrics.
import { createServer, type Server } from 'node:http';
import { metricsExposition } from '../../metrics/exposition.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';

export interface HealthState {
  ready(): boolean;
  leader(): boolean;
  /** Ms since the election loop last finished a round; undefined before it started. */
  sinceLastRound(): number | undefined;
  /** Beyond this the process counts as wedged. */
  staleAfterMs: number;
  /** The process's recorder (the one its runtime records into): what /metrics exposes. */
  metrics: MetricsRecorder;
}

export function startHealthServer(port: number, s: HealthState): Promise<Server> {
  const server = createServer((req, res) => {
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { error: 'GET only' });
    if (path === '/healthz') {
      const since = s.sinceLastRound();
      return since !== undefined && since > s.staleAfterMs ? json(503, { ok: false, sinceLastRoundMs: since }) : json(200, { ok: true });
    }
    if (path === '/readyz') return json(s.ready() ? 200 : 503, { ready: s.ready(), leader: s.leader() });
    if (path === '/metrics') {
      metricsExposition(s.metrics).then(
        (m) => res.writeHead(200, { 'content-type': m.contentType }).end(m.body),
        (e: unknown) => json(500, { error: (e as Error).message }),
      );
      return;
    }
    json(404, { error: 'not found' });
  });
  return new Promise((resolve) => server.listen(port, () => resolve(server)));
}
