// The node:http adapter of the one wrapper (serve/resolve.ts decides every request for every
// target): the production server's (hosts/server/server.ts) own request handling, with no framework in
// between. What only HTTP has is checked here — who sent it (headers only), its encoding and
// declared length (the front, front.ts, has checked those in hosts/server/server.ts; they are checked again
// for the adapter alone), the body's size while it is read, its parsing (parse-body.ts,
// the forms the framework's parsers gave), the framework's ignored paths, the method — then
// the resolver decides and its answer is written, as the functions-framework adapter
// (functions-framework.ts) writes it.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Runtime } from '../../runtime/runtime.js';
import type { SenderAuth } from './auth.js';
import { checkSender, methodRefused } from './http-checks.js';
import { refuseBeforeReading } from './limits.js';
import { parseBody, planBody } from './parse-body.js';
import { BadRequestError, resolveContextOf, resolver, type Resolved } from '../resolve.js';
import type { TargetSpec } from '../target.js';

export interface NodeHttpOptions {
  /** The process's sender check (hosts/server/setup.ts); skipped for a request the front has let through. */
  auth: SenderAuth;
  /** The most body bytes read; past it (declared or streamed), 413 and the connection closes. */
  maxBytes: number;
}

/** Paths functions-framework answers 404, with no body, before an HTTP function sees them (crawlers, browsers). */
const IGNORED = ['/favicon.ico', '/robots.txt'];

/** `spec` with its parts as a node:http request listener. */
export function nodeHttpTarget<P>(spec: TargetSpec<P>, parts: P, rt: Runtime, opts: NodeHttpOptions): RequestListener {
  const resolve = resolver(spec, parts, resolveContextOf(rt));
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = Date.now();
    const refuse = async (e: unknown) => write(res, await resolve.refuse(e, started));
    let body: unknown;
    let sender: string;
    // In the framework's order: a path no route takes, a path that does not decode, then the
    // body read and parsed (a broken one is a 4xx whatever the path or method), then the
    // ignored paths, then the method.
    const path = pathOf(req.url);
    if (path === undefined) return notFound(res);
    try {
      const checked = await checkSender(req, opts.auth);
      if ('refused' in checked) return refuse(checked.refused);
      sender = checked.subject;
      if (!decodes(path)) return refuse(new BadRequestError(400, `the path ${JSON.stringify(path.slice(0, 200))} does not decode (a malformed %-escape)`));
      // What the front refuses on headers (hosts/server/server.ts), refused here too when the adapter stands alone.
      const unread = refuseBeforeReading(req, opts.maxBytes);
      if (unread) return refuse(new BadRequestError(unread.status, unread.why, { connection: 'close' }));
      const plan = planBody(req.headers);
      if (plan instanceof BadRequestError) return refuse(plan);
      if (plan.read) {
        const bytes = await readBody(req, opts.maxBytes);
        if (bytes === 'gone') return;
        if (bytes === 'too-large')
          return refuse(new BadRequestError(413, `the body is over ${opts.maxBytes} bytes, the most accepted`, { connection: 'close' }));
        body = parseBody(plan, bytes);
      }
    } catch (e) {
      return refuse(e);
    }
    if (ignored(path)) return notFound(res);
    const method = methodRefused(req.method);
    if (method) return refuse(method);
    write(res, await resolve.request({ headers: req.headers, body, sender }, started));
  };
  return (req, res) => {
    answer(req, res).catch((e: unknown) => {
      // serve/resolve.ts answers every error itself; this is a fault in writing the answer.
      rt.log.error({ target: spec.name, err: (e as Error)?.message ?? String(e) }, 'not answered');
      if (!res.headersSent)
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ target: spec.name, error: 'internal error' }));
    });
  };
}

/** The answer as functions-framework's Express wrote it (`res.status(s).json(body)`). */
function write(res: ServerResponse, out: Resolved): void {
  // The front (or the bound below) may have answered already, and the socket may be gone.
  if (res.headersSent || res.destroyed) return;
  const json = JSON.stringify(out.body);
  for (const [name, value] of Object.entries(out.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.writeHead(out.status);
  res.end(json);
  // A body cut off at the bound is not read further: the connection closes once the answer is out.
  if (out.headers['connection'] === 'close') res.once('finish', () => res.req.destroy());
}

/** A 404 with no body, as the framework answered a path it does not serve. */
function notFound(res: ServerResponse): void {
  if (!res.headersSent) res.writeHead(404, { 'content-length': '0' }).end();
}

/**
 * The request's path as Express routed it: before the query, from an absolute URL's path; undefined
 * for a target no route takes (`OPTIONS *`).
 */
function pathOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  if (url.startsWith('/')) return url.split(/[?#]/)[0]!;
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}

/** Whether every %-escape of `path` decodes (Express refused the request with 400 otherwise). */
function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether `path` is one of the framework's ignored paths (any case, or below one). */
function ignored(path: string): boolean {
  const p = path.toLowerCase();
  return IGNORED.some((i) => p === i || p.startsWith(`${i}/`));
}

/**
 * The body's bytes, counted as they arrive (a chunked body declares no length: the front's
 * check on Content-Length cannot see it) and no more than `maxBytes` of them: 'too-large' as
 * soon as it passes that, 'gone' when the sender went away (or the front cut the body off).
 */
function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | 'too-large' | 'gone'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let seen = 0;
    const done = (result: Buffer | 'too-large' | 'gone') => {
      req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen <= maxBytes) return void chunks.push(chunk);
      req.pause();
      done('too-large');
    };
    const onEnd = () => done(Buffer.concat(chunks, seen));
    const onGone = () => done('gone');
    req.on('data', onData).once('end', onEnd).once('error', onGone).once('close', onGone);
  });
}
