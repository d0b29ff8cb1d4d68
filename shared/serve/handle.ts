// The one wrapper around every target (target.ts): the status code is the contract with the
// event bridge. 2xx handled; 4xx the input is wrong, a retry will not help, and nothing was
// written; 5xx try again, which is safe because every write is tied to stored state.
import type { HttpFunction } from '@google-cloud/functions-framework';
import type { Request, Response } from 'express';
import { BadEventError, decodeEvent, isEventRequest, type InternalEvent } from '../cloudevents/index.js';
import { MAX_JSON_DEPTH, tooDeep } from '../cloudevents/body.js';
import { isCloudEventRequest } from '../cloudevents/http.js';
// errors.ts, not the index: the index loads the Kubernetes client, which may not be needed.
import { KubeError, TransientKubeError } from '../kube/errors.js';
import { requestDone } from '../metrics/observe.js';
import { PolicyError } from '../policy/errors.js';
import type { Runtime } from '../runtime/runtime.js';
import { SENDER_VERIFIED } from './front.js';
import { bodyTooLarge } from './limits.js';
import type { Answer, Input, TargetSpec } from './target.js';

/** An input error found by a handler itself (not by the event decoder). */
export class BadRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'BadRequestError';
  }
}

/** The deadline passed before the handler finished: what it wrote stays written (and is safe to repeat). */
class DeadlineError extends Error {
  override name = 'DeadlineError';
}

export function serveTarget<P>(spec: TargetSpec<P>, parts: P, rt: Runtime): HttpFunction {
  return async (req: Request, res: Response) => {
    const started = Date.now();
    const deadline = started + rt.config.REQUEST_DEADLINE_SECONDS * 1000;
    try {
      // Every trigger POSTs (CloudEvents, schedulers, people). A GET from a health check or a
      // browser must never start a sweep that deletes pods.
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        throw new BadRequestError(405, `${req.method} is not accepted: POST an event or a request body`);
      }
      // Before anything reads the body: who sent it (headers only). The production server's
      // front has checked already; a process started by functions-framework's main has not.
      const sender = (req as unknown as Record<symbol, boolean>)[SENDER_VERIFIED] ? ({ ok: true } as const) : await rt.auth.authenticate(req.headers);
      if (!sender.ok) {
        res.setHeader('WWW-Authenticate', sender.challenge);
        throw new BadRequestError(sender.status, sender.why);
      }
      const tooLarge = bodyTooLarge(req as { rawBody?: Buffer }, rt.config.MAX_BODY_BYTES);
      if (tooLarge) throw new BadRequestError(413, tooLarge);
      // Whatever the framework parsed, before any recursive reader sees it.
      if (tooDeep(req.body)) throw new BadRequestError(400, `the body nests deeper than ${MAX_JSON_DEPTH} levels`);
      const input = accept(spec, parts, req);
      const dryRun = rt.config.DRY_RUN;
      const answer = await withDeadline(spec.handle(input, parts, rt, { deadline, dryRun }), deadline);
      const status = statusOf(answer);
      const body = { target: spec.name, ...answer, dryRun: answer.dryRun ?? dryRun, ...policyWarning(spec, rt) };
      if (status === 503) res.setHeader('Retry-After', '10');
      // Measured and (when pushing) flushed before the answer: after it, an instance may be gone.
      await requestDone(spec.name, status, started, answer, input.type === 'tick', spec.observe);
      res.status(status).json(body);
      rt.log[status >= 500 ? 'warn' : 'info']({ target: spec.name, status, ms: Date.now() - started, ...summaryOf(body) }, 'handled');
    } catch (e) {
      const [status, body] = mapError(e);
      await requestDone(spec.name, status, started, undefined, false);
      if (!res.headersSent) res.status(status).json({ target: spec.name, ...body });
      rt.log[status >= 500 ? 'error' : 'warn']({ target: spec.name, status, ms: Date.now() - started, err: body.error }, 'not handled');
    }
  };
}

/** Decodes the request and checks it against what the target accepts, or throws a 4xx. */
function accept<P>(spec: TargetSpec<P>, parts: P, req: Request): Input {
  const { accepts } = spec;
  if (!isCloudEventRequest(req)) {
    // A raw Pub/Sub push (no CloudEvent headers) is an event, decoded and refused when it is
    // bad: never a plain POST that starts a full pass, whatever the message holds.
    if (accepts.plain === 'tick' && !isEventRequest(req)) return { type: 'tick' };
    if (accepts.plain === 'body') return { type: 'body', body: req.body, headers: req.headers };
  }
  const event: InternalEvent = decodeEvent({ headers: req.headers, body: req.body });
  if (event.type === 'tick') {
    if (accepts.ticks) return { type: 'tick', event };
    throw new BadRequestError(422, `${spec.name} does not take schedule ticks: ${accepts.hint}`);
  }
  if (event.type === 'shard') {
    if (accepts.shards) return { type: 'shard', shard: event.shard };
    throw new BadRequestError(422, `${spec.name} does not take sweep shards: ${accepts.hint}`);
  }
  const kind = event.type === 'object' ? event.object.kind : event.ref.kind;
  const kinds = typeof accepts.kinds === 'function' ? accepts.kinds(parts) : accepts.kinds;
  if (!kinds?.includes(kind))
    throw new BadRequestError(
      422,
      kinds?.length ? `${spec.name} takes ${kinds.join(', ')} events, not ${kind}: ${accepts.hint}` : `${spec.name} takes no object events: ${accepts.hint}`,
    );
  const { namespace, name } = event.type === 'object' ? event.object.metadata : event.ref;
  // Every kind a target takes is namespaced; the decoder has checked both names' syntax.
  if (!namespace) throw new BadRequestError(400, `a ${kind} event needs a namespace (metadata.namespace)`);
  return event.type === 'object' ? { type: 'object', event, namespace, name } : { type: 'reference', event, namespace, name };
}

function statusOf(answer: Answer): number {
  if (answer.failures?.transient) return 503;
  if (answer.failures?.refused) return 500;
  return 200;
}

function policyWarning<P>(spec: TargetSpec<P>, rt: Runtime): { policyWarning?: string } {
  const warning = spec.needs.policy ? rt.policy?.lastError() : undefined;
  return warning ? { policyWarning: warning } : {};
}

async function withDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError('the request deadline passed before the work finished')), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function mapError(e: unknown): [number, Record<string, unknown>] {
  if (e instanceof BadEventError) return [e.status, { error: e.message, issues: e.issues }];
  if (e instanceof BadRequestError) return [e.status, { error: e.message }];
  if (e instanceof PolicyError) return [400, { error: 'invalid policy', issues: e.issues }];
  if ((e as Error)?.name === 'UnsafeRequestError') return [400, { error: (e as Error).message }];
  // The API server or a worker is unreachable or overloaded, or time ran out: retry.
  if (e instanceof TransientKubeError || e instanceof DeadlineError) return [503, { error: e.message }];
  // A permanent answer from the API server (RBAC, validation) is kube-tidy's own setup
  // problem, not the event's: a 500 keeps it visible in the bridge's dead letters.
  if (e instanceof KubeError) return [500, { error: e.message }];
  return [500, { error: `internal error: ${(e as Error)?.message ?? String(e)}` }];
}

/** What a log line about an answer carries: enough to follow a pod without the body. */
function summaryOf(body: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  // `result` (an act's uid, strategy, action, dryRun): a pod's story can be told by uid (the demo's story.ts).
  for (const key of ['outcome', 'pod', 'why', 'result', 'summary', 'failures'] as const) if (body[key] !== undefined) picked[key] = body[key];
  return picked;
}

/** `spec` as a functions-framework HTTP function, its parts set up on first use (tests, benches). */
export function httpFunction<P>(spec: TargetSpec<P>, rt: Runtime): HttpFunction {
  let served: Promise<HttpFunction> | undefined;
  return async (req, res) => {
    served ??= Promise.resolve(spec.setup(rt)).then((parts) => serveTarget(spec, parts, rt));
    return (await served)(req, res);
  };
}
