// What the production server (server.ts) puts in front of functions-framework's app: the
// checks that must happen before any body is read, because the framework parses every body
// before a function runs. First who sent it (sender authentication, headers only), then how
// much it may send (limits.ts). handle.ts repeats both for processes started by the
// framework's own main (development), where nothing stands in front.
import type { RequestListener } from 'node:http';
import type { SenderAuth } from './auth.js';
import { withBodyLimits } from './limits.js';

export function front(app: RequestListener, opts: { auth: SenderAuth; maxBytes: number }): RequestListener {
  const limited = withBodyLimits(app, opts.maxBytes);
  if (opts.auth.platform === 'none') return limited;
  return (req, res) => {
    // Nothing reads the body while the token is checked: it waits in the socket's buffers.
    req.pause();
    opts.auth.authenticate(req.headers).then(
      (verdict) => {
        if (verdict.ok) {
          req.resume();
          return limited(req, res);
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
