// Every write that did not happen because someone said no, made visible where every write
// goes (writer.ts): kube-tidy itself (a protected namespace, a replica that lost its Lease) or
// the API server (RBAC, validation, a PodDisruptionBudget, a precondition that no longer held).
// Counted in kube_tidy_writes_refused_total{reason,verb}, both from fixed sets so the series
// stay bounded, and logged as a sample: per reason, the first LOG_PER_WINDOW a minute get a
// line each, the rest one summary line (metrics/sampled-log.ts), so a flood cannot fill the log.
// A transient failure (5xx, throttling, a timeout) is no refusal: a retry may succeed.
import { createLogger, type Logger } from '../log.js';
import type { MetricsRecorder } from '../metrics/recorder.js';
import { logSampler, type Sampler } from '../metrics/sampled-log.js';
import { classifyKubeError, KubeError } from './errors.js';

/** What was asked: the Kubernetes verb (an eviction is its own: a create on pods/eviction). */
export type WriteVerb = 'delete' | 'evict' | 'patch' | 'create' | 'update';

export const WRITE_REFUSAL_REASONS = [
  /** kube-tidy: the namespace is protected (PROTECTED_NAMESPACES); nothing was sent. */
  'protected-namespace',
  /** kube-tidy: this replica does not hold the Lease (standalone); nothing was sent. */
  'fenced',
  /** kube-tidy: a pod asked to go by a plain object DELETE (a rule of any kind naming Pod); a pod leaves through removePod alone; nothing was sent. */
  'not-a-pod-removal',
  /** 403: RBAC (or an admission webhook answering Forbidden). */
  'forbidden',
  /** 401: credentials refused. */
  'unauthorized',
  /** 400, 422: the API server found the write invalid. */
  'invalid',
  /** 429 on an eviction: a PodDisruptionBudget allows no disruption now. */
  'disruption-budget',
  /** 429 on an eviction for another reason (a webhook), not an evacuation it started. */
  'eviction-blocked',
  /** 409/412: a precondition (uid, resourceVersion) no longer held; the object changed. */
  'stale',
  /** Any other 4xx. */
  'rejected',
] as const;
export type WriteRefusalReason = (typeof WRITE_REFUSAL_REASONS)[number];

export const LOG_PER_WINDOW = 5;
const WINDOW_MS = 60_000;

/**
 * One process's refusals seen: where they are logged (the process's logger; the CLI's is on
 * stderr, never its output) and the sampler that keeps a flood to a few lines a minute. The
 * runtime (or the CLI) builds one at start, counting in the host's recorder, and gives it to
 * every writer it makes; a writer built without one (tests) gets its own, logging on stdout and
 * counting nowhere.
 */
export class WriteRefusals {
  private readonly sampled: Sampler<WriteRefusalReason>;
  private log: Logger | undefined;

  constructor(
    private readonly metrics: MetricsRecorder,
    log?: Logger,
    now?: () => number,
  ) {
    this.log = log;
    this.sampled = logSampler<WriteRefusalReason>({
      perWindow: LOG_PER_WINDOW,
      windowMs: WINDOW_MS,
      ...(now ? { now } : {}),
      summary: (reason, suppressed) => this.logger().warn({ reason, suppressed, windowSeconds: WINDOW_MS / 1000 }, 'write refusals not logged one by one'),
    });
  }

  private logger(): Logger {
    return (this.log ??= createLogger({ name: 'kube-tidy-writer' }));
  }

  /** One refused write: counted every time, logged as sampled. Never throws. */
  note(verb: WriteVerb, reason: WriteRefusalReason, what: string, message?: string): void {
    try {
      this.metrics.record('writesRefused', 1, { reason, verb });
      if (this.sampled(reason)) this.logger().warn({ verb, reason, what, ...(message ? { message } : {}) }, 'write refused');
    } catch {
      // Seeing a refusal must never change what the write answers.
    }
  }

  /** `error` noted when it is a refusal; returned as is, for the caller to throw. */
  noted(verb: WriteVerb, what: string, error: unknown): unknown {
    const reason = refusalOf(error);
    // The classified message: scrubbed of credentials and cut (errors.ts), never the raw body.
    if (reason) this.note(verb, reason, what, failureOf(error).message);
    return error;
  }
}

/** The reason a failed write counts under, or undefined when it is no refusal (transient, or a bug). */
export function refusalOf(error: unknown): WriteRefusalReason | undefined {
  const f = failureOf(error);
  if (f.reason === 'Fenced') return 'fenced';
  switch (f.kind) {
    case 'forbidden':
      return 'forbidden';
    case 'unauthorized':
      return 'unauthorized';
    case 'invalid':
      return 'invalid';
    case 'conflict':
      return 'stale';
    case 'rejected':
      return 'rejected';
    default:
      return undefined;
  }
}

const failureOf = (error: unknown) => (error instanceof KubeError ? error.failure : classifyKubeError(error));
