// What the production server (hosts/server/server.ts) puts in front of its node:http adapter
// (node-http.ts): the checks that must happen before any body is read. First who sent it
// (sender authentication, headers only), then how much it may send (limits.ts: the
// encoding and the declared length refused on headers, a chunked body cut off once it passes
// the bound). The adapters repeat both where nothing stands in front: functions-framework.ts for processes
// started by functions-framework's own main (development), node-http.ts when used alone.
import type { RequestListener } from 'node:http';
import { createLogger, type Logger } from '../../log.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import type { SenderAuth } from './auth.js';
import { withBodyLimits } from './limits.js';
import { refusalSink, type RefusalSink } from './refusals.js';

/** What a sender told to retry waits, as the wrapper's own 503s say. */
export const RETRY_AFTER_SECONDS = '10';

/** Set on a request the front has authenticated, to its sender's subject: the wrapper does not verify it twice, and knows who sent it. */
export const SENDER_VERIFIED = Symbol('kube-tidy.senderVerified');

export interface FrontOptions {
  auth: SenderAuth;
  maxBytes: number;
  /** The target served: the `target` label of the refusals counted here. */
  target: string;
  /** Where refusals are logged (sampled, refusals.ts); a logger of its own by default. */
  log?: Logger;
  /** Where refusals are counted: the process's recorder (rt.metrics). */
  metrics: MetricsRecorder;
}

export function front(app: RequestListener, opts: FrontOptions): RequestListener {
  // Every refusal here is counted and (sampled) logged: the wrapper never sees these requests.
  const refused = refusalSink(opts.metrics, opts.target, opts.log ?? createLogger({ name: 'kube-tidy-front' }));
  const onLimit = (status: 413 | 415, why: string) => refused({ status, reason: status === 413 ? 'too-large' : 'encoding', why });
  // The limits outermost: the byte count starts with the first byte, even while the token is checked.
  return withBodyLimits(opts.auth.platform === 'none' ? app : senderChecked(app, opts.auth, refused), opts.maxBytes, onLimit);
}

function senderChecked(app: RequestListener, auth: SenderAuth, refused: RefusalSink): RequestListener {
  return (req, res) => {
    // Nothing reads the body while the token is checked: a request stream is not consumed
    // until someone listens, so it waits in its buffer (and the socket's) for the adapter.
    auth.authenticate(req.headers).then(
      (verdict) => {
        if (verdict.ok) {
          (req as unknown as Record<symbol, string>)[SENDER_VERIFIED] = verdict.subject;
          return app(req, res);
        }
        refused({
          status: verdict.status,
          reason: verdict.status === 503 ? 'sender-check-unavailable' : 'unauthenticated',
          why: verdict.why,
          subject: verdict.subject,
        });
        res.writeHead(verdict.status, {
          'content-type': 'application/json',
          'www-authenticate': verdict.challenge,
          connection: 'close',
          ...(verdict.status === 503 ? { 'retry-after': RETRY_AFTER_SECONDS } : {}),
        });
        res.end(JSON.stringify({ error: verdict.why }));
        res.once('finish', () => req.destroy());
      },
      (e: unknown) => {
        refused({ status: 503, reason: 'sender-check-unavailable', why: `sender check failed: ${(e as Error).message}` });
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': RETRY_AFTER_SECONDS, connection: 'close' });
        res.end(JSON.stringify({ error: `sender check failed: ${(e as Error).message}` }));
      },
    );
  };
}
