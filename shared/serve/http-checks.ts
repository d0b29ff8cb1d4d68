// What only HTTP has, checked the same way by both HTTP adapters (handle.ts for
// functions-framework's Express, node-http.ts for the production server) before a body is
// decoded: the method, and who sent it (headers only). Each adapter checks the body's size
// the way its transport reads the body.
import type { IncomingHttpHeaders } from 'node:http';
import type { SenderAuth } from './auth.js';
import { SENDER_VERIFIED } from './front.js';
import { BadRequestError } from './resolve.js';

/** A 405 for anything but a POST, or undefined. */
export function methodRefused(method: string | undefined): BadRequestError | undefined {
  // Every trigger POSTs (CloudEvents, schedulers, people). A GET from a health check or a
  // browser must never start a sweep that deletes pods.
  if (method === 'POST') return undefined;
  return new BadRequestError(405, `${method} is not accepted: POST an event or a request body`, { Allow: 'POST' });
}

/** A 401 or 503 when the sender is not let through, or undefined. Throws what the check threw. */
export async function senderRefused(req: { headers: IncomingHttpHeaders }, auth: SenderAuth): Promise<BadRequestError | undefined> {
  // The production server's front has checked already; a process started by
  // functions-framework's main has not.
  if ((req as unknown as Record<symbol, boolean>)[SENDER_VERIFIED]) return undefined;
  const sender = await auth.authenticate(req.headers);
  return sender.ok ? undefined : new BadRequestError(sender.status, sender.why, { 'WWW-Authenticate': sender.challenge });
}
