// The functions-framework adapter of the one wrapper (serve/resolve.ts decides every request for
// every target): what only HTTP has is checked here, before the body is decoded — the method,
// who sent it (headers only), the size the framework read — and the resolved answer is
// written back. It serves processes started by `functions-framework --target` (hosts/server/framework-entry.ts);
// the production server reads bodies itself (node-http.ts).
import type { HttpFunction } from '@google-cloud/functions-framework';
import type { Request } from 'express';
import type { Runtime } from '../../runtime/runtime.js';
import type { SenderAuth } from './auth.js';
import { checkSender, methodRefused } from './http-checks.js';
import { bodyTooLarge } from './limits.js';
import { BadRequestError, resolveContextOf, resolver } from '../resolve.js';
import { senderAuthOf } from './senders.js';
import type { TargetSpec } from '../target.js';

/**
 * `spec` with its parts as a functions-framework HTTP function. `auth`: the process's sender
 * check (hosts/server/setup.ts); tests and benches that pass none get one from `rt`'s environment.
 */
export function serveTarget<P>(spec: TargetSpec<P>, parts: P, rt: Runtime, auth: SenderAuth = senderAuthOf(rt)): HttpFunction {
  const resolve = resolver(spec, parts, resolveContextOf(rt));
  return async (req, res) => {
    leaveFrameworkDomain();
    const started = Date.now();
    let checked: { subject: string } | { refused: unknown };
    try {
      checked = await checkedByHttp(req, rt, auth);
    } catch (e) {
      checked = { refused: e };
    }
    const out =
      'refused' in checked
        ? await resolve.refuse(checked.refused, started)
        : await resolve.request({ headers: req.headers, body: req.body as unknown, sender: checked.subject }, started);
    if (res.headersSent) return;
    for (const [name, value] of Object.entries(out.headers)) res.setHeader(name, value);
    res.status(out.status).json(out.body);
  };
}

/**
 * functions-framework runs each request inside a `node:domain` (its wrapHttpFunction), to
 * answer 500 for an exception thrown outside the function's own promise. While a domain is
 * entered, every async resource created (each promise a pass makes by the thousand) is tied to
 * it, and every callback enters and leaves it: measured on a sweep of 5,000 removals, 0.83–0.89
 * ms of the process's CPU per removal inside it, 0.66 ms outside (issue 35). The wrapper answers every request itself and never lets its
 * promise reject, so the request leaves the domain at once, as the production server
 * (node-http.ts) never enters one. The framework's catch on the returned promise stays.
 */
function leaveFrameworkDomain(): void {
  (process as { domain?: { exit(): void } | null }).domain?.exit();
}

/** Who sent the request, or why HTTP refuses it before it is decoded. */
async function checkedByHttp(req: Request, rt: Runtime, auth: SenderAuth): Promise<{ subject: string } | { refused: BadRequestError }> {
  const method = methodRefused(req.method);
  if (method) return { refused: method };
  const sender = await checkSender(req, auth);
  if ('refused' in sender) return sender;
  const tooLarge = bodyTooLarge(req as { rawBody?: Buffer }, rt.config.MAX_BODY_BYTES);
  return tooLarge ? { refused: new BadRequestError(413, tooLarge) } : sender;
}

/** `spec` as a functions-framework HTTP function, its parts set up on first use (tests, benches). */
export function httpFunction<P>(spec: TargetSpec<P>, rt: Runtime, auth?: SenderAuth): HttpFunction {
  let served: Promise<HttpFunction> | undefined;
  return async (req, res) => {
    served ??= Promise.resolve(spec.setup(rt)).then((parts) => serveTarget(spec, parts, rt, auth));
    return (await served)(req, res);
  };
}
