// The HTTP adapter of the one wrapper (resolve.ts decides every request for every target):
// what only HTTP has is checked here, before the body is decoded — the method, who sent it
// (headers only), the size the framework read — and the resolved answer is written back.
import type { HttpFunction } from '@google-cloud/functions-framework';
import type { Request } from 'express';
import type { Runtime } from '../runtime/runtime.js';
import { SENDER_VERIFIED } from './front.js';
import { bodyTooLarge } from './limits.js';
import { BadRequestError, resolver } from './resolve.js';
import type { TargetSpec } from './target.js';

// Handlers import it from here (functions/*.ts).
export { BadRequestError } from './resolve.js';

export function serveTarget<P>(spec: TargetSpec<P>, parts: P, rt: Runtime): HttpFunction {
  const resolve = resolver(spec, parts, rt);
  return async (req, res) => {
    const started = Date.now();
    let refused: unknown;
    try {
      refused = await refusedByHttp(req, rt);
    } catch (e) {
      refused = e;
    }
    const out = refused === undefined ? await resolve.request(req, started) : await resolve.refuse(refused, started);
    if (res.headersSent) return;
    for (const [name, value] of Object.entries(out.headers)) res.setHeader(name, value);
    res.status(out.status).json(out.body);
  };
}

/** Why HTTP refuses the request before it is decoded, or undefined. */
async function refusedByHttp(req: Request, rt: Runtime): Promise<BadRequestError | undefined> {
  // Every trigger POSTs (CloudEvents, schedulers, people). A GET from a health check or a
  // browser must never start a sweep that deletes pods.
  if (req.method !== 'POST') return new BadRequestError(405, `${req.method} is not accepted: POST an event or a request body`, { Allow: 'POST' });
  // Before anything reads the body: who sent it (headers only). The production server's
  // front has checked already; a process started by functions-framework's main has not.
  if (!(req as unknown as Record<symbol, boolean>)[SENDER_VERIFIED]) {
    const sender = await rt.auth.authenticate(req.headers);
    if (!sender.ok) return new BadRequestError(sender.status, sender.why, { 'WWW-Authenticate': sender.challenge });
  }
  const tooLarge = bodyTooLarge(req as { rawBody?: Buffer }, rt.config.MAX_BODY_BYTES);
  return tooLarge ? new BadRequestError(413, tooLarge) : undefined;
}

/** `spec` as a functions-framework HTTP function, its parts set up on first use (tests, benches). */
export function httpFunction<P>(spec: TargetSpec<P>, rt: Runtime): HttpFunction {
  let served: Promise<HttpFunction> | undefined;
  return async (req, res) => {
    served ??= Promise.resolve(spec.setup(rt)).then((parts) => serveTarget(spec, parts, rt));
    return (await served)(req, res);
  };
}
