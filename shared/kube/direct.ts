// A thin typed request for the hot writes (issue 35): a sweep's removal is one DELETE, and
// through client-node's generated layers it cost several times the CPU of the request itself
// (a profile of 5,000 removals: its fetch layer, request and response layers and
// ObjectSerializer decoding the whole pod each DELETE answers with, beside a new https.Agent and
// the credentials decoded again for every request). Here the request is written by hand, on
// the same kept-alive connections, and a 2xx answer's body is drained unread: the writer needs
// its status, nothing more. Everything else is as for client-node's requests: the request
// lifecycle (path guard, rate limit, counting, metrics, timeout, the server's throttling) is
// the same object's, the credentials are the KubeConfig's own, and an error answer is thrown
// as client-node throws it (ApiException with the Status text), so errors.ts reads it the same.
import { setLongTimeout, sleepLong } from '../config/long-timeout.js';
import type { Agent as HttpAgent, IncomingMessage, OutgoingHttpHeaders, RequestOptions } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ApiException, type KubeConfig } from '@kubernetes/client-node';
import type { KeepAliveAgents } from './agent.js';
import { timedOut, type RequestLifecycle } from './request-lifecycle.js';
import { classifyKubeError, readRetryPauseMs } from './errors.js';

/** How long the credentials and TLS identity read from the KubeConfig are used before they are read again. */
export const IDENTITY_TTL_MS = 10_000;
/** An error answer's body is read up to this (a Status is a few hundred bytes). */
const ERROR_BODY_MAX = 256 * 1024;

interface Identity {
  headers: Record<string, string>;
  agent: HttpAgent | undefined;
  readAt: number;
}

interface Sent {
  status: number;
  /** Its headers are read only when needed (an error answer): Node builds them on first access. */
  res: IncomingMessage;
  /** An answer that is not 2xx (up to ERROR_BODY_MAX), or a 2xx one that was asked to be read. */
  text?: string;
  /** The API server's own throttling (the lifecycle's reading of the answer): sent again. */
  throttled?: boolean;
}

export class DirectRequests {
  private held?: Identity;
  private reading?: Promise<Identity> | undefined;
  /** Where requests go, worked out once: no URL is parsed per request. */
  private readonly target: { origin: string; basePath: string; request: { protocol: string; hostname: string; port: string } };

  constructor(
    private readonly kc: KubeConfig,
    private readonly lifecycle: RequestLifecycle,
    private readonly agents: KeepAliveAgents | undefined,
    private readonly throttledRetries: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    const base = new URL(cluster.server);
    this.target = {
      origin: base.origin,
      basePath: base.pathname.replace(/\/$/, ''),
      // http.request wants an IPv6 address without its brackets.
      request: { protocol: base.protocol, hostname: base.hostname.replace(/^\[(.*)\]$/, '$1'), port: base.port },
    };
  }

  /**
   * Sends `body` as JSON to `path` (absolute, its segments already encoded). A 2xx answers
   * its status, its body unread. Anything else throws (see `answered`).
   */
  async send(method: string, path: string, body: object): Promise<number> {
    const payload = Buffer.from(JSON.stringify(body));
    return (await this.answered(method, path, payload, false)).status;
  }

  /** GETs `path` and answers its JSON as it is on the wire (no typed model: timestamps stay strings). */
  async getJson(path: string): Promise<unknown> {
    const sent = await this.answered('GET', path, undefined, true);
    return JSON.parse(sent.text ?? '');
  }

  /**
   * The 2xx answer to a request. Anything else throws: an ApiException for an answer (after
   * the server's own throttling was retried, as every client's request is, and a 401 sent once
   * more with credentials read again), the socket's error otherwise.
   */
  private async answered(method: string, path: string, payload: Buffer | undefined, read: boolean): Promise<Sent> {
    for (let attempt = 0, reauth = true; ; attempt++) {
      const sent = await this.once(method, path, payload, read);
      if (sent.status < 300) return sent;
      if (sent.status === 401 && reauth) {
        // Credentials that expired since they were read (an exec plugin's token, a rotated file).
        this.held = undefined;
        reauth = false;
        continue;
      }
      const error = new ApiException(sent.status, `HTTP-Code: ${sent.status}`, sent.text ?? '', flat(sent.res.headers));
      if (attempt >= this.throttledRetries) throw error;
      if (sent.throttled) continue;
      // A read the API server could not serve yet ("storage is (re)initializing"): after its Retry-After (errors.ts).
      const pause = method === 'GET' ? readRetryPauseMs(classifyKubeError(error)) : undefined;
      if (pause === undefined) throw error;
      await sleepLong(pause);
    }
  }

  private async once(method: string, path: string, payload: Buffer | undefined, read: boolean): Promise<Sent> {
    const { origin, basePath } = this.target;
    const ms = await this.lifecycle.before(method, `${origin}${basePath}${path}`);
    const { headers, agent } = await this.current();
    const body = payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {};
    const sent = await exchange(
      { ...this.target.request, path: `${basePath}${path}`, method, agent, headers: { ...headers, accept: 'application/json', ...body } },
      ms,
      payload,
      read,
    );
    // Only a 429's headers matter to the lifecycle (its content type and Retry-After).
    const h = sent.status === 429 ? sent.res.headers : undefined;
    sent.throttled = this.lifecycle.after(sent.status, h?.['content-type'], header(h?.['retry-after']));
    return sent;
  }

  /**
   * The KubeConfig's credentials and TLS identity, read again after IDENTITY_TTL_MS: by one
   * request, the ones sent meanwhile wait for the same read. A failed read (an exec plugin that
   * failed) is not kept: the next request tries again.
   */
  private current(): Identity | Promise<Identity> {
    const held = this.held;
    if (held && this.now() - held.readAt < IDENTITY_TTL_MS) return held;
    this.reading ??= readIdentity(this.kc, this.agents, this.now())
      .then((i) => (this.held = i))
      .finally(() => (this.reading = undefined));
    return this.reading;
  }
}

async function readIdentity(kc: KubeConfig, agents: KeepAliveAgents | undefined, readAt: number): Promise<Identity> {
  const opts: { headers?: OutgoingHttpHeaders; agent?: HttpAgent; auth?: string } = {};
  await kc.applyToHTTPSOptions(opts);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
  if (opts.auth) headers.authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  const agent = opts.agent && agents ? agents.reuse(opts.agent) : opts.agent;
  return { headers, agent, readAt };
}

const header = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

const flat = (h: IncomingMessage['headers']): Record<string, string> =>
  Object.fromEntries(Object.entries(h).flatMap(([k, v]) => (v === undefined ? [] : [[k, header(v)!]])));

/**
 * One request and its answer: a 2xx's body read whole when `read`, else drained unread (the
 * socket goes back to the pool either way); any other's read as text up to ERROR_BODY_MAX. Cut
 * off after `ms` (one timer, cleared with the answer: cheaper than a signal per request).
 */
function exchange(options: RequestOptions & { protocol: string }, ms: number, payload: Buffer | undefined, read: boolean): Promise<Sent> {
  const send = options.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise<Sent>((resolve, reject) => {
    const req = send(options, (res) => {
      const status = res.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      const done = (sent: Sent) => (timer.clear(), resolve(sent));
      res.on('error', fail);
      if (ok && !read) {
        res.on('end', () => done({ status, res }));
        res.resume();
        return;
      }
      const max = ok ? Infinity : ERROR_BODY_MAX;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < max) chunks.push(c);
        size += c.length;
      });
      res.on('end', () => done({ status, res, text: Buffer.concat(chunks).subarray(0, max).toString('utf8') }));
    });
    const fail = (error: Error) => (timer.clear(), reject(error));
    // REQUEST_TIMEOUT_SECONDS and the Lease's renew deadline have no upper bound.
    const timer = setLongTimeout(() => req.destroy(timedOut(ms)), ms);
    req.on('error', fail);
    req.end(payload);
  });
}
