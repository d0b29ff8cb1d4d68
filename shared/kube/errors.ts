// One place that turns whatever client-node throws into a small typed result, so the
// function adapters can answer 5xx (the bridge retries) or 4xx/2xx (it must not) without
// knowing HTTP details. Two client-node shapes matter: ApiException (the server answered,
// `code` is the HTTP status, `body` the Status JSON as text) and node-fetch's FetchError/
// AbortError (it did not: refused, reset, DNS, timed out; `code` is then a string).

export type KubeErrorKind =
  | 'not-found' // 404
  | 'conflict' // 409, 412: a precondition (uid, resourceVersion) no longer holds
  | 'too-many-requests' // 429: a PDB refusal on eviction, throttling elsewhere
  | 'forbidden' // 403: RBAC; retrying will not help
  | 'unauthorized' // 401: bad or expired credentials
  | 'invalid' // 400, 422
  | 'expired' // 410: a LIST continue token or watch resourceVersion compacted away
  | 'transient' // 5xx, 408, network errors, timeouts
  | 'rejected' // any other 4xx
  | 'unknown'; // not an HTTP or network failure at all: a bug, left to surface as is

export interface KubeFailure {
  kind: KubeErrorKind;
  /** HTTP status when the server answered. */
  status?: number;
  /** Status.reason from the API server (NotFound, Conflict, TooManyRequests, ...). */
  reason?: string;
  message: string;
  /** Status.details.kind: which resource the error is about (pods, poddisruptionbudgets). */
  detailsKind?: string;
  /**
   * Status.details.causes: on a refused eviction {reason: 'DisruptionBudget', message:
   * 'The disruption budget <name> does not allow evicting pods currently'}. (Go's
   * StatusCause.Type is serialised as "reason".)
   */
  causes: { reason?: string; message?: string }[];
  /** The server's Retry-After, in seconds, when it sent one. */
  retryAfterSeconds?: number;
  /** metadata.continue of a 410 Status: the API server's inconsistent continuation token. */
  continueToken?: string;
  /**
   * A 429 from the API server's own filters (API Priority and Fairness, max-inflight): they
   * answer in plain text ("Too many requests, please try again later."), never with a Status,
   * so it cannot be mistaken for an eviction refused by a PodDisruptionBudget (a Status).
   */
  throttled?: boolean;
}

interface StatusBody {
  message?: string;
  reason?: string;
  metadata?: { continue?: string };
  details?: { kind?: string; causes?: { reason?: string; message?: string }[]; retryAfterSeconds?: number };
}

// Network failures that say nothing about the request itself: worth a retry.
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]);

/** How much of a server's message is kept: enough to say why, never megabytes of echo. */
export const MESSAGE_MAX = 2000;

/**
 * Strip anything credential-shaped: bearer tokens and user:password in URLs. The text is cut
 * first and every quantifier is bounded or anchored by a literal, so the cost is linear in
 * MESSAGE_MAX whatever a server (or an attacker's name echoed in its message) sends.
 */
export function scrub(text: string): string {
  const cut = text.length > MESSAGE_MAX ? `${text.slice(0, MESSAGE_MAX)}...` : text;
  return cut.replace(/(bearer\s{1,8})[\w.~+/=-]+/gi, '$1[redacted]').replace(/([a-z][a-z0-9+.-]{0,15}:\/\/)[^/@\s]{1,256}@/gi, '$1[redacted]@');
}

function kindOfStatus(status: number): KubeErrorKind {
  if (status === 404) return 'not-found';
  if (status === 409 || status === 412) return 'conflict';
  if (status === 429) return 'too-many-requests';
  if (status === 403) return 'forbidden';
  if (status === 401) return 'unauthorized';
  if (status === 400 || status === 422) return 'invalid';
  if (status === 410) return 'expired';
  if (status >= 500 || status === 408) return 'transient';
  return 'rejected';
}

function parseBody(body: unknown): StatusBody & { plain?: true } {
  if (typeof body === 'object' && body !== null) return body as StatusBody;
  if (typeof body !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as StatusBody) : { message: body, plain: true };
  } catch {
    return { message: body.slice(0, MESSAGE_MAX), plain: true };
  }
}

/**
 * How long to wait before sending a read (a LIST page, a read by name) again that the API
 * server answered with a Status 429 and a Retry-After: "storage is (re)initializing" while a
 * resource's watch cache starts (after an API server's restart, or a CRD just established).
 * client-go sends any such request again after its Retry-After; kube-tidy does so for reads
 * only (its callers ask for reads alone), where sending again cannot repeat an effect, and never
 * for a write, where a Status 429 is an answer about the request (a PodDisruptionBudget on an
 * eviction). Undefined: not that answer. Capped at MAX_READ_PAUSE_SECONDS; the deadline holds.
 */
export function readRetryPauseMs(f: KubeFailure): number | undefined {
  if (f.status !== 429 || f.throttled || f.reason !== 'TooManyRequests' || f.retryAfterSeconds === undefined || f.retryAfterSeconds <= 0) return undefined;
  return Math.min(f.retryAfterSeconds, MAX_READ_PAUSE_SECONDS) * 1000;
}

/** A read's Retry-After above this is capped: a function's deadline is under a minute. */
export const MAX_READ_PAUSE_SECONDS = 5;

export function classifyKubeError(error: unknown): KubeFailure {
  const e = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  if (typeof e.code === 'number' && e.code >= 400) {
    const body = parseBody(e.body);
    const headers = (e.headers ?? {}) as Record<string, string>;
    const retryAfter = Number(headers['retry-after'] ?? body.details?.retryAfterSeconds);
    return {
      kind: kindOfStatus(e.code),
      status: e.code,
      reason: body.reason,
      message: scrub(body.message ?? (e.code === 401 ? 'Unauthorized' : `HTTP ${e.code}`)),
      detailsKind: body.details?.kind,
      causes: (body.details?.causes ?? []).map((c) => ({ reason: c.reason, message: c.message && scrub(c.message) })),
      retryAfterSeconds: Number.isFinite(retryAfter) ? retryAfter : undefined,
      continueToken: body.metadata?.continue || undefined,
      ...(e.code === 429 && body.plain ? { throttled: true } : {}),
    };
  }
  const message = scrub(error instanceof Error ? error.message : String(error));
  const name = typeof e.name === 'string' ? e.name : '';
  const timedOut = name === 'AbortError' || name === 'TimeoutError';
  const network = name === 'FetchError' || (typeof e.code === 'string' && NETWORK_CODES.has(e.code));
  if (timedOut || network) return { kind: 'transient', message: timedOut ? `timed out: ${message}` : message, causes: [] };
  return { kind: 'unknown', message, causes: [] };
}

/** Base of the errors below: carries the classification for logs and adapters. */
export class KubeError extends Error {
  constructor(
    message: string,
    readonly failure: KubeFailure,
  ) {
    super(message);
    this.name = new.target.name;
  }
  get status(): number | undefined {
    return this.failure.status;
  }
  get kind(): KubeErrorKind {
    return this.failure.kind;
  }
}

/**
 * What the API server answered, whether the error is the client's own or one kube-tidy already
 * wrapped (the pager's, toKubeError): a KubeError carries its failure, which classifyKubeError
 * cannot see (it reads the client's numeric `code`).
 */
export const failureKindOf = (e: unknown): KubeErrorKind => (e instanceof KubeError ? e.failure.kind : classifyKubeError(e).kind);

/** Retrying may help (server 5xx, throttling, unreachable, timeout): adapters answer 5xx. */
export class TransientKubeError extends KubeError {}

/** Retrying will not help (forbidden, invalid, ...): adapters answer 4xx or report and go on. */
export class KubeRequestError extends KubeError {}

/**
 * Wrap a failure of `what` (e.g. "delete pod ml/a") as a TransientKubeError or a
 * KubeRequestError. A 429 is transient here: the eviction path handles its own 429 first.
 * Anything that is neither HTTP nor network (a bug) is returned unchanged.
 */
export function toKubeError(error: unknown, what: string): Error {
  if (error instanceof KubeError) return error;
  const failure = classifyKubeError(error);
  if (failure.kind === 'unknown') return error instanceof Error ? error : new Error(failure.message);
  const status = failure.status === undefined ? '' : ` ${failure.status}${failure.reason ? ` ${failure.reason}` : ''}`;
  const message = `${what}:${status} ${failure.message}`;
  // 410 too: the retry starts its LIST or watch afresh.
  const transient = failure.kind === 'transient' || failure.kind === 'too-many-requests' || failure.kind === 'expired';
  return transient ? new TransientKubeError(message, failure) : new KubeRequestError(message, failure);
}
