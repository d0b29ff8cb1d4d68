import type { Request, Response } from 'express';
import { BadEventError } from '../events/index.js';
// errors.ts, not the index: the index loads the Kubernetes client, which may not be needed.
import { KubeError, TransientKubeError } from '../kube/errors.js';
import { PolicyError } from '../policy/errors.js';
import type { Logger } from '../log.js';

// The status code is the contract with the event bridge: 2xx handled, 4xx the input is wrong
// (a retry will not help, and nothing was written), 5xx try again (and that must be safe).

export interface Answer {
  status?: number;
  body: Record<string, unknown>;
}

/** An input error found by a function itself (not by the event decoder). */
export class BadRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'BadRequestError';
  }
}

export async function respond(req: Request, res: Response, log: Logger, handler: () => Promise<Answer>): Promise<void> {
  const started = Date.now();
  try {
    // Every trigger POSTs (CloudEvents, schedulers, people). A GET from a health check or a
    // browser must never start a sweep that deletes pods.
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      throw new BadRequestError(405, `${req.method} is not accepted: POST an event or a request body`);
    }
    const { status = 200, body } = await handler();
    res.status(status).json(body);
    log.info({ path: req.path, status, ms: Date.now() - started, ...summaryOf(body) }, 'handled');
  } catch (e) {
    const [status, body] = mapError(e);
    res.status(status).json(body);
    const level = status >= 500 ? 'error' : 'warn';
    log[level]({ path: req.path, status, ms: Date.now() - started, err: body.error }, 'not handled');
  }
}

function mapError(e: unknown): [number, Record<string, unknown>] {
  if (e instanceof BadEventError) return [e.status, { error: e.message, issues: e.issues }];
  if (e instanceof BadRequestError) return [e.status, { error: e.message }];
  if (e instanceof PolicyError) return [400, { error: 'invalid policy', issues: e.issues }];
  // The API server or a worker is unreachable or overloaded: let the bridge retry.
  if (e instanceof TransientKubeError) return [503, { error: e.message }];
  // A permanent answer from the API server (RBAC, validation) is kube-tidy's own setup
  // problem, not the event's: a 500 keeps it visible in the bridge's dead letters.
  if (e instanceof KubeError) return [500, { error: e.message }];
  return [500, { error: `internal error: ${(e as Error)?.message ?? String(e)}` }];
}

/** What a log line about an answer carries: enough to follow a pod without the body. */
function summaryOf(body: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of ['outcome', 'pod', 'why', 'summary'] as const) if (body[key] !== undefined) picked[key] = body[key];
  return picked;
}
