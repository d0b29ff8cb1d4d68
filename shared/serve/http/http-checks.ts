// What only HTTP has, checked the same way by both HTTP adapters (functions-framework.ts for
// functions-framework's Express, node-http.ts for the production server) before a body is
// decoded: the method, and who sent it (headers only). Each adapter checks the body's size
// the way its transport reads the body.
import type { IncomingHttpHeaders } from 'node:http';
import type { SenderAuth } from './auth.js';
import { SENDER_VERIFIED } from './front.js';
import { BadRequestError } from '../resolve.js';

/** A 405 for anything but a POST, or undefined. */
export function methodRefused(method: string | undefined): BadRequestError | undefined {
  // Every trigger POSTs (CloudEvents, schedulers, people). A GET from a health check or a
  // browser must never start a sweep that deletes pods.
  if (method === 'POST') return undefined;
  return new BadRequestError(405, `${method} is not accepted: POST an event or a request body`, { Allow: 'POST' });
}

/**
 * Who sent the request, as the sender check names it (`anonymous` with SENDER_AUTH=none): a
 * target may narrow who may send what (podTerminated's DUE_TICK_SENDERS). A 401 or 503 when
 * the sender is not let through. Throws what the check threw.
 */
export async function checkSender(req: { headers: IncomingHttpHeaders }, auth: SenderAuth): Promise<{ subject: string } | { refused: BadRequestError }> {
  // The production server's front has checked already; a process started by
  // functions-framework's main has not.
  const verified = (req as unknown as Record<symbol, unknown>)[SENDER_VERIFIED];
  if (typeof verified === 'string') return { subject: verified };
  const sender = await auth.authenticate(req.headers);
  return sender.ok ? { subject: sender.subject } : { refused: new BadRequestError(sender.status, sender.why, { 'WWW-Authenticate': sender.challenge }) };
}
