// The in-process event routing: an HTTP server on loopback that serves every running target
// through the one wrapper (functions-framework's app per target, as the image's server does)
// at /targets/<name>, and /events, where the bridge's deliveries arrive and are fanned out to
// the targets ROUTES names, as Knative's Triggers would. Any target's 5xx answers 503, so the
// bridge retries the event (safe: every write is tied to stored state); 4xx answers are the
// event's fault and are only logged. The fence (`holds`, leader.ts) is asked before each
// event and each tick reaches a target: when the Lease is not known to be held no target sees
// it and the answer is 503, so the bridge tries it again; it is delivered if this replica then
// renews its Lease, and dropped with the backlog if it lost it (main.ts: the new leader's own
// watch and schedule cover it).
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Logger } from '../log.js';
import { routesFor } from './routes.js';

export interface Dispatcher {
  url: string;
  server: Server;
  close(): Promise<void>;
}

const readBody = (req: Parameters<RequestListener>[0]): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

export async function startDispatcher(apps: ReadonlyMap<string, RequestListener>, log: Logger, holds: () => boolean = () => true): Promise<Dispatcher> {
  const running = new Set(apps.keys());
  let base = '';
  let dropped = 0;
  const fenced = (res: Parameters<RequestListener>[1], what: string): boolean => {
    if (holds()) return false;
    if (dropped++ === 0) log.warn({ what }, 'dropping events and ticks: the Lease is not known to be held');
    res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ fenced: true }));
    return true;
  };
  const fanOut = async (req: Parameters<RequestListener>[0], res: Parameters<RequestListener>[1]): Promise<void> => {
    const body = await readBody(req);
    const type = String(req.headers['ce-type'] ?? '');
    const verb = type.split('.').pop() ?? '';
    const targets = routesFor(verb, String(req.headers['ce-kind'] ?? ''), running);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k.startsWith('ce-') || k === 'content-type')) as Record<string, string>;
    const answers = await Promise.all(
      targets.map(async (t) => {
        const r = await fetch(`${base}/targets/${t}`, { method: 'POST', headers, body });
        const text = await r.text();
        if (r.status >= 400) log.warn({ target: t, status: r.status, answer: text.slice(0, 500) }, 'a target did not handle the event');
        return r.status;
      }),
    );
    const status = answers.some((s) => s >= 500) ? 503 : 200;
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ targets, answers }));
  };
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (req.method === 'POST' && (path === '/events' || path.startsWith('/targets/')) && fenced(res, path)) {
      req.resume();
      return;
    }
    if (req.method === 'POST' && path === '/events') {
      fanOut(req, res).catch((e: unknown) => {
        log.error({ err: (e as Error).message }, 'dispatch failed');
        if (!res.headersSent) res.writeHead(503).end();
      });
      return;
    }
    const app = path.startsWith('/targets/') ? apps.get(path.slice('/targets/'.length)) : undefined;
    if (app) {
      req.url = '/';
      app(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  server.setTimeout(0);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url: base,
    server,
    close: () =>
      new Promise((resolve) => {
        if (dropped) log.info({ dropped }, 'events and ticks dropped while not holding the Lease');
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
