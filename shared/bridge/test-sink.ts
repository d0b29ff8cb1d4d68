// A real HTTP sink on 127.0.0.1 for tests: records every request and answers from a script
// (one status per request, the last one repeating).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

export interface TestSink {
  url: string;
  received: Received[];
  /** Statuses to answer, in order; the last repeats. A function decides per request. */
  answer(script: number[] | ((req: { headers: IncomingHttpHeaders; body: string }) => number)): void;
  /** Makes the next answers wait this long (to provoke client timeouts). */
  delay(ms: number): void;
  close(): Promise<void>;
}

export async function startTestSink(): Promise<TestSink> {
  const received: Received[] = [];
  let script: number[] | ((req: { headers: IncomingHttpHeaders; body: string }) => number) = [200];
  let served = 0;
  let delayMs = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const status = typeof script === 'function' ? script({ headers: req.headers, body }) : (script[Math.min(served, script.length - 1)] ?? 200);
      served++;
      received.push({ headers: req.headers, body, status });
      const reply = () => {
        res.statusCode = status;
        res.end(status >= 400 ? `sink says ${status}` : '');
      };
      if (delayMs > 0) setTimeout(reply, delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    received,
    answer(s) {
      script = s;
      served = 0;
    },
    delay(ms) {
      delayMs = ms;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
