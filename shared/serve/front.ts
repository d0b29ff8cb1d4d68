// What the production server (server.ts) puts in front of functions-framework's app: the
// checks that must happen before any body is read, because the framework parses every body
// before a function runs. First who sent it (sender authentication, headers only), then how
// much it may send (limits.ts). handle.ts repeats both for processes started by the
// framework's own main (development), where nothing stands in front.
import type { RequestListener } from 'node:http';
import type { SenderAuth } from './auth.js';
import { withBodyLimits } from './limits.js';

/** Set on a request the front has authenticated, so the wrapper does not verify it twice. */
export const SENDER_VERIFIED = Symbol('kube-tidy.senderVerified');

export function front(app: RequestListener, opts: { auth: SenderAuth; maxBytes: number }): RequestListener {
  // The limits outermost: the byte count starts with the first byte, even while the token is checked.
  return withBodyLimits(opts.auth.platform === 'none' ? app : senderChecked(app, opts.auth), opts.maxBytes);
}

function senderChecked(app: RequestListener, auth: SenderAuth): RequestListener {
  return (req, res) => {
    // Nothing reads the body while the token is checked: a request stream is not consumed
    // until someone listens, so it waits in its buffer (and the socket's) for the framework.
    auth.authenticate(req.headers).then(
      (verdict) => {
        if (verdict.ok) {
          (req as unknown as Record<symbol, boolean>)[SENDER_VERIFIED] = true;
          return app(req, res);
        }
        res.writeHead(verdict.status, { 'content-type': 'application/json', 'www-authenticate': verdict.challenge, connection: 'close' });
        res.end(JSON.stringify({ error: verdict.why }));
        res.once('finish', () => req.destroy());
      },
      (e: unknown) => {
        res.writeHead(503, { 'content-type': 'application/json', connection: 'close' });
        res.end(JSON.stringify({ error: `sender check failed: ${(e as Error).message}` }));
      },
    );
  };
}
