// What happens around every request kube-tidy sends, whichever way it is sent (client-node's
// generated clients through their middleware, clients.ts; the direct requests of the hot
// writes, direct.ts): one definition, so a lean path cannot skip a rule.
// Before: the path guard (path-guard.ts), the rate limit (throttle.ts), the request counted
// (request tally, the bench's hook, the metrics), a timeout that never outlasts the CLI's
// --timeout. After: the answer counted, and the server's own throttling pauses everyone.
import { apiHost, observeApiRequest, observeApiResponse } from '../metrics/observe.js';
import type { MetricsRecorder } from '../metrics/recorder.js';
import { unsafePathProblem } from './path-guard.js';
import { countRequestSent } from './request-tally.js';
import type { Throttle } from './throttle.js';

/** What a request cut off by its time answers (errors.ts reads its name as timed out: transient). */
export function timedOut(ms: number): Error {
  const error = new Error(ms > 0 ? `the request took longer than ${ms} ms` : 'past the command deadline (--timeout)');
  error.name = ms > 0 ? 'TimeoutError' : 'AbortError';
  return error;
}

/** A request whose path an input changed the shape of: never sent. A bug, or an attack. */
export class UnsafeRequestError extends Error {
  override name = 'UnsafeRequestError';
}

export interface LifecycleOptions {
  timeoutMs: number;
  throttle: Throttle;
  /** The API server's address, for the metrics (a response carries no URL). */
  server: string;
  metrics: MetricsRecorder;
  onRequest?: (method: string, url: string) => void;
  /** The CLI's --timeout as an instant (ms since the epoch): see KubeClientOptions.endsAt. */
  endsAt?: number;
}

export class RequestLifecycle {
  private readonly host: string;

  constructor(private readonly o: LifecycleOptions) {
    this.host = apiHost(o.server);
  }

  /**
   * Everything before a request leaves; answers how long it may take (ms), never beyond the
   * command's deadline. Once that has passed nothing is sent, so nothing is counted as sent:
   * it throws (timedOut: transient), for both ways of sending alike.
   */
  async before(method: string, url: string): Promise<number> {
    // The last line of defence for "names are names": names are validated where they
    // arrive, and no request whose path was reshaped by one ('..', an encoded '/') leaves.
    const unsafe = unsafePathProblem(url);
    if (unsafe) throw new UnsafeRequestError(`refused to send ${method} ${unsafe}`);
    await this.o.throttle.take();
    const { timeoutMs, endsAt } = this.o;
    const left = endsAt === undefined ? timeoutMs : Math.min(timeoutMs, Math.floor(endsAt - Date.now()));
    if (left <= 0) throw timedOut(left);
    countRequestSent();
    this.o.onRequest?.(method, url);
    observeApiRequest(this.o.metrics, method, this.host);
    return left;
  }

  /**
   * The answer's status and content type. The server's own throttling answers in plain text
   * (see errors.ts `throttled`): everyone pauses for its Retry-After. A Status 429 is about the
   * request (a PodDisruptionBudget) and pauses nobody. Answers whether it was throttling (the
   * direct requests send such a request again; client-node's clients read it from the error).
   */
  after(status: number, contentType: string | undefined, retryAfter: string | undefined): boolean {
    observeApiResponse(this.o.metrics, this.host, status);
    const throttled = status === 429 && /^text\/plain/.test(contentType ?? '');
    if (throttled) this.o.throttle.pause(Number(retryAfter) || 1);
    else this.o.throttle.answered();
    return throttled;
  }
}
