// Deciding a request, with no transport: decode -> accepts? -> handle -> common fields ->
// status, a function of the input and the target (as tRPC's resolveResponse serves every
// adapter and hono's adapters only wire app.fetch). The status code is the contract with the
// event bridge: 2xx handled; 4xx the input is wrong, a retry will not help, and nothing was
// written; 5xx try again, which is safe because every write is tied to stored state. What
// only HTTP has (the method, the sender's token, the body's size) is checked by its adapter,
// http/node-http.ts or http/functions-framework.ts; the standalone program hands its watch's events and its ticks to `event`
// (standalone/dispatch.ts). Every answer is counted (kube_tidy_requests_total) and logged
// the same way whichever way it came; 4xx lines are sampled, as the front's refusals are.
import { setLongTimeout, type LongTimeout } from '../config/long-timeout.js';
import { BadEventError, decodeEvent, isEventRequest, type InternalEvent } from '../cloudevents/index.js';
import { MAX_JSON_DEPTH, tooDeep } from '../cloudevents/body.js';
import { isCloudEventRequest } from '../cloudevents/http.js';
// errors.ts, not the index: the index loads the Kubernetes client, which may not be needed.
import { KubeError, TransientKubeError } from '../kube/errors.js';
import { logSampler } from '../metrics/sampled-log.js';
import { PolicyError } from '../policy/errors.js';
import type { Logger } from '../log.js';
import type { MetricsRecorder } from '../metrics/recorder.js';
import type { Notifier } from '../notify/notifier.js';
import type { Runtime } from '../runtime/runtime.js';
import type { Answer, Input, TargetSpec } from './target.js';
import { requestDone } from './request-done.js';

/** An input error found by a handler itself, or by a transport's adapter (not by the event decoder). */
export class BadRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Headers the answer carries (Allow on a 405, WWW-Authenticate on a 401). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'BadRequestError';
  }
}

/** The deadline passed before the handler finished: what it wrote stays written (and is safe to repeat). */
class DeadlineError extends Error {
  override name = 'DeadlineError';
}

/** What a transport sends back: HTTP writes it as it is; the standalone program reads the status. */
export interface Resolved {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A request as the decoder reads it: headers and the body as parsed (JSON, text or bytes). */
export interface RequestLike {
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** Who sent it, as the transport's sender check named it; none is taken as `anonymous` (a tick's sender may be checked). */
  sender?: string;
}

export interface Resolver {
  /** A request a transport has let through (method, sender, size checked): decoded, then as `event`. */
  request(req: RequestLike, started?: number): Promise<Resolved>;
  /** An event already decoded (the standalone program's watch and schedule): checked against `accepts`, handled. */
  event(event: InternalEvent, started?: number): Promise<Resolved>;
  /** An input already checked against `accepts`: handled. */
  input(input: Input, started?: number): Promise<Resolved>;
  /** A transport's own refusal (a BadRequestError, or what its check threw): counted and logged as any answer. */
  refuse(e: unknown, started?: number): Promise<Resolved>;
}

/** 4xx log lines per status per minute; the rest are counted and said in one summary line. */
export const LOG_4XX_PER_WINDOW = 5;
const WINDOW_MS = 60_000;

/** What the resolver takes of its process: the four values it reads, the outbox every request's end flushes and the recorder it counts in. */
export interface ResolveContext {
  log: Logger;
  /** REQUEST_DEADLINE_SECONDS, in ms: how long a handler has. */
  deadlineMs: number;
  /** DRY_RUN: what an answer says when its handler says nothing of it. */
  dryRun: boolean;
  /** Why the policy source's last reload failed (the answer's policyWarning, for a target that reads a policy). */
  policyError(): string | undefined;
  /** The process's CloudEvents out (notify/notifier.ts), flushed before each answer. */
  notifier: Notifier;
  /** The process's metrics recorder (metrics/recorder.ts): each request, and the push before each answer. */
  metrics: MetricsRecorder;
}

/** The resolver's context from a runtime (its hosts and the HTTP adapters have one). */
export function resolveContextOf(rt: Runtime): ResolveContext {
  return {
    log: rt.log,
    deadlineMs: rt.config.REQUEST_DEADLINE_SECONDS * 1000,
    dryRun: rt.config.DRY_RUN,
    policyError: () => rt.policy?.lastError(),
    notifier: rt.notifier,
    metrics: rt.metrics,
  };
}

/** The resolver of `spec` with its parts: one per target per process (it keeps the 4xx log sampler). */
export function resolver<P>(spec: TargetSpec<P>, parts: P, ctx: ResolveContext): Resolver {
  const sampled = logSampler<number>({
    perWindow: LOG_4XX_PER_WINDOW,
    windowMs: WINDOW_MS,
    summary: (status, suppressed) =>
      ctx.log.warn(
        { target: spec.name, status, suppressed, windowSeconds: WINDOW_MS / 1000 },
        'not handled: more answers with this status not logged one by one',
      ),
  });

  const answer = async (input: Input, started: number): Promise<Resolved> => {
    const deadline = started + ctx.deadlineMs;
    const dryRun = ctx.dryRun;
    const answered = await withDeadline(spec.handle(input, parts, { deadline, dryRun }), deadline);
    const status = statusOf(answered);
    const body = { target: spec.name, ...answered, dryRun: answered.dryRun ?? dryRun, ...policyWarning(spec, ctx) };
    // Measured and (when pushing) flushed before the answer: after it, an instance may be gone.
    await requestDone(ctx, spec.name, status, started, answered, input.type === 'tick', spec.observe);
    ctx.log[status >= 500 ? 'warn' : 'info']({ target: spec.name, status, ms: Date.now() - started, ...summaryOf(body) }, 'handled');
    return { status, headers: status === 503 ? { 'Retry-After': '10' } : {}, body };
  };

  const refuse = async (e: unknown, started: number): Promise<Resolved> => {
    const [status, body] = mapError(e);
    await requestDone(ctx, spec.name, status, started, undefined, false);
    const line = { target: spec.name, status, ms: Date.now() - started, err: body.error };
    if (status >= 500) ctx.log.error(line, 'not handled');
    else if (sampled(status)) ctx.log.warn(line, 'not handled');
    return { status, headers: e instanceof BadRequestError ? e.headers : {}, body: { target: spec.name, ...body } };
  };

  const settle = async (work: () => Input, started: number): Promise<Resolved> => {
    try {
      return await answer(work(), started);
    } catch (e) {
      return refuse(e, started);
    }
  };

  return {
    request: (req, started = Date.now()) =>
      settle(() => {
        const decoded = decode(spec, req);
        const input = 'input' in decoded ? decoded.input : accept(spec, parts, decoded.event);
        // A request's tick or object event says who sent it; one a host hands over itself (`event`) has no sender.
        return input.type === 'tick' || input.type === 'object' ? { ...input, sender: req.sender ?? 'anonymous' } : input;
      }, started),
    event: (event, started = Date.now()) => settle(() => accept(spec, parts, event), started),
    input: (input, started = Date.now()) => settle(() => input, started),
    refuse: (e, started = Date.now()) => refuse(e, started),
  };
}

/** The request as one event, or the plain input the target takes without one; throws a 4xx. */
function decode<P>(spec: TargetSpec<P>, req: RequestLike): { input: Input } | { event: InternalEvent } {
  // Whatever the transport parsed, before any recursive reader sees it.
  if (tooDeep(req.body)) throw new BadRequestError(400, `the body nests deeper than ${MAX_JSON_DEPTH} levels`);
  const { accepts } = spec;
  if (!isCloudEventRequest(req)) {
    // A raw Pub/Sub push (no CloudEvent headers) is an event, decoded and refused when it is
    // bad: never a plain POST that starts a full pass, whatever the message holds.
    if (accepts.plain === 'tick' && !isEventRequest(req)) return { input: { type: 'tick' } };
    if (accepts.plain === 'body') return { input: { type: 'body', body: req.body, headers: req.headers } };
  }
  return { event: decodeEvent({ headers: req.headers, body: req.body }) };
}

/** Checks an event against what the target accepts, or throws a 4xx. */
function accept<P>(spec: TargetSpec<P>, parts: P, event: InternalEvent): Input {
  const { accepts } = spec;
  if (event.type === 'tick') {
    if (accepts.ticks) return { type: 'tick', event };
    throw new BadRequestError(422, `${spec.name} does not take schedule ticks: ${accepts.hint}`);
  }
  if (event.type === 'shard') {
    if (accepts.shards) return { type: 'shard', shard: event.shard };
    throw new BadRequestError(422, `${spec.name} does not take sweep shards: ${accepts.hint}`);
  }
  const kind = event.type === 'object' ? event.object.kind : event.ref.kind;
  const kinds = acceptedKinds(spec, parts);
  if (!kinds.includes(kind))
    throw new BadRequestError(
      422,
      kinds.length ? `${spec.name} takes ${kinds.join(', ')} events, not ${kind}: ${accepts.hint}` : `${spec.name} takes no object events: ${accepts.hint}`,
    );
  const { namespace, name } = event.type === 'object' ? event.object.metadata : event.ref;
  // A kind a target takes is namespaced unless it says otherwise; the decoder has checked both names' syntax.
  if (!namespace && !(accepts.clusterScoped?.(parts) ?? []).includes(kind))
    throw new BadRequestError(400, `a ${kind} event needs a namespace (metadata.namespace)`);
  const ns = namespace ?? '';
  return event.type === 'object' ? { type: 'object', event, namespace: ns, name } : { type: 'reference', event, namespace: ns, name };
}

/** The kinds of object events `spec` takes with these parts. */
export function acceptedKinds<P>(spec: Pick<TargetSpec<P>, 'accepts'>, parts: P): readonly string[] {
  const { kinds } = spec.accepts;
  return (typeof kinds === 'function' ? kinds(parts) : kinds) ?? [];
}

/** The kinds the standalone program's watch routes to `spec`: its `routes`, else every kind it takes. */
export function routedKinds<P>(spec: Pick<TargetSpec<P>, 'accepts'>, parts: P): readonly string[] {
  return spec.accepts.routes ? spec.accepts.routes(parts) : acceptedKinds(spec, parts);
}

function statusOf(answer: Answer): number {
  if (answer.failures?.transient) return 503;
  if (answer.failures?.refused) return 500;
  return 200;
}

function policyWarning<P>(spec: TargetSpec<P>, ctx: ResolveContext): { policyWarning?: string } {
  const warning = spec.needs.policy ? ctx.policyError() : undefined;
  return warning ? { policyWarning: warning } : {};
}

async function withDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  let timer: LongTimeout | undefined;
  const late = new Promise<never>((_, reject) => {
    // REQUEST_DEADLINE_SECONDS has no upper bound: past 2^31-1 ms a bare setTimeout fires at once.
    timer = setLongTimeout(() => reject(new DeadlineError('the request deadline passed before the work finished')), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    timer?.clear();
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
  // `eligibleAt`, `scheduled`: a pod only time stands in the way of says when it goes, not just "nothing to do".
  for (const key of ['outcome', 'pod', 'why', 'result', 'eligibleAt', 'scheduled', 'summary', 'failures'] as const)
    if (body[key] !== undefined) picked[key] = body[key];
  return picked;
}
