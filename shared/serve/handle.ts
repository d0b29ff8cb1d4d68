// The functions-framework adapter of the one wrapper (resolve.ts decides every request for
// every target): what only HTTP has is checked here, before the body is decoded — the method,
// who sent it (headers only), the size the framework read — and the resolved answer is
// written back. It serves processes started by `functions-framework --target` (framework-entry.ts);
// the production server reads bodies itself (node-http.ts).
import type { HttpFunction } from '@google-cloud/functions-framework';
import type { Request } from 'express';
import type { Runtime } from '../runtime/runtime.js';
import type { SenderAuth } from './auth.js';
import { methodRefused, senderRefused } from './http-checks.js';
import { bodyTooLarge } from './limits.js';
import { BadRequestError, resolver } from './resolve.js';
import { senderAuthOf } from './senders.js';
import type { TargetSpec } from './target.js';

// Handlers import it from here (functions/*.ts).
export { BadRequestError } from './resolve.js';

/**
 * `spec` with its parts as a functions-framework HTTP function. `auth`: the process's sender
 * check (setup.ts); tests and benches that pass none get one from `rt`'s environment.
 */
export function serveTarget<P>(spec: TargetSpec<P>, parts: P, rt: Runtime, auth: SenderAuth = senderAuthOf(rt)): HttpFunction {
  const resolve = resolver(spec, parts, rt);
  return async (req, res) => {
    const started = Date.now();
    let refused: unknown;
    try {
      refused = await refusedByHttp(req, rt, auth);
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
async function refusedByHttp(req: Request, rt: Runtime, auth: SenderAuth): Promise<BadRequestError | undefined> {
  const refused = methodRefused(req.method) ?? (await senderRefused(req, auth));
  if (refused) return refused;
  const tooLarge = bodyTooLarge(req as { rawBody?: Buffer }, rt.config.MAX_BODY_BYTES);
  return tooLarge ? new BadRequestError(413, tooLarge) : undefined;
}

/** `spec` as a functions-framework HTTP function, its parts set up on first use (tests, benches). */
export function httpFunction<P>(spec: TargetSpec<P>, rt: Runtime, auth?: SenderAuth): HttpFunction {
  let served: Promise<HttpFunction> | undefined;
  return async (req, res) => {
    served ??= Promise.resolve(spec.setup(rt)).then((parts) => serveTarget(spec, parts, rt, auth));
    return (await served)(req, res);
  };
}
