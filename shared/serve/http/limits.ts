// Bounded work per request, before the body is read. functions-framework's own parsers take
// up to 1 GiB and inflate gzip/deflate bodies without a bound of their own, so a 200 KB
// request can become 200 MB of JSON. The production server (hosts/server/server.ts) applies these checks
// in its front (front.ts), before its adapter reads the body (node-http.ts, which bounds what
// it reads too); functions-framework.ts checks again what the framework read, for processes started by
// functions-framework's own main (development).
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/** Why the request must not be read (413/415 material), or undefined. Headers only. */
export function refuseBeforeReading(req: IncomingMessage, maxBytes: number): { status: 413 | 415; why: string } | undefined {
  const encoding = String(req.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  // No sender kube-tidy supports compresses its requests; an inflated body has no useful bound.
  if (encoding !== '' && encoding !== 'identity')
    return { status: 415, why: `content-encoding ${encoding.slice(0, 40)} is not accepted: send the body uncompressed` };
  const length = Number(req.headers['content-length'] ?? 0);
  if (length > maxBytes) return { status: 413, why: `the body is ${length} bytes; at most ${maxBytes} are accepted` };
  return undefined;
}

/**
 * Counts the bytes of a body as they arrive (chunked requests carry no length) and calls
 * `onExceeded` past `maxBytes`, without consuming the stream: whoever reads it still does.
 */
export function capBody(req: IncomingMessage, maxBytes: number, onExceeded: () => void): void {
  let seen = 0;
  const push = req.push.bind(req);
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk !== null && chunk !== undefined) {
      seen += (chunk as Buffer).length;
      if (seen > maxBytes) {
        req.push = push;
        onExceeded();
        return false;
      }
    }
    return push(chunk, encoding);
  };
}

/** For a body the framework already read: too large (413 material), or undefined. */
export function bodyTooLarge(req: { rawBody?: Buffer }, maxBytes: number): string | undefined {
  const n = req.rawBody?.length ?? 0;
  return n > maxBytes ? `the body is ${n} bytes; at most ${maxBytes} are accepted` : undefined;
}

function refuse(res: ServerResponse, status: 413 | 415, why: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify({ error: why }));
}

/** `app` behind the checks above: refused on its headers, or cut off once the body passes the cap. */
export function withBodyLimits(app: RequestListener, maxBytes: number, onRefused?: (status: 413 | 415, why: string) => void): RequestListener {
  return (req, res) => {
    const refused = refuseBeforeReading(req, maxBytes);
    if (refused) {
      onRefused?.(refused.status, refused.why);
      refuse(res, refused.status, refused.why);
      // Whatever body follows is not read: the connection closes once the answer is out.
      res.once('finish', () => req.destroy());
      return;
    }
    capBody(req, maxBytes, () => {
      if (!res.headersSent) onRefused?.(413, `the body is over ${maxBytes} bytes, the most accepted`);
      refuse(res, 413, `the body is over ${maxBytes} bytes, the most accepted`);
      res.once('finish', () => req.destroy());
    });
    app(req, res);
  };
}
