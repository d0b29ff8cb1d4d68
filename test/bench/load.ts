// The load loop: POSTs prepared CloudEvents to one function at a fixed concurrency over
// kept-alive connections and times every request from send to the end of the answer.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { HttpMessage } from '../../shared/cloudevents/index.js';

export interface LoadResult {
  events: number;
  concurrency: number;
  ms: number;
  latenciesMs: number[];
  statuses: Record<string, number>;
  outcomes: Record<string, number>;
}

function post(agent: Agent, url: URL, m: HttpMessage): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { ...m.headers, 'content-length': Buffer.byteLength(m.body) } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(m.body);
  });
}

/** Sends messages[i % messages.length] for i < count, `concurrency` at a time. */
export async function drive(sink: string, messages: HttpMessage[], count: number, concurrency: number): Promise<LoadResult> {
  const url = new URL(sink);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const r: LoadResult = { events: count, concurrency, ms: 0, latenciesMs: [], statuses: {}, outcomes: {} };
  let next = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          const m = messages[next++ % messages.length]!;
          const t0 = performance.now();
          const { status, body } = await post(agent, url, m);
          r.latenciesMs.push(performance.now() - t0);
          r.statuses[status] = (r.statuses[status] ?? 0) + 1;
          const outcome = status === 200 ? String((JSON.parse(body) as { outcome?: string }).outcome) : `http ${status}`;
          r.outcomes[outcome] = (r.outcomes[outcome] ?? 0) + 1;
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  r.ms = performance.now() - started;
  return r;
}
