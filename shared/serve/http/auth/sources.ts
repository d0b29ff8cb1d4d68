import type { KubeConfig } from '@kubernetes/client-node';
import { request, type RequestOptions } from 'node:https';
import type { KeySource } from './keys.js';

// Where keys and discovery documents come from. Small bodies only: a key set or a discovery
// document is a few KB, and a larger answer is refused rather than buffered.

const MAX_BODY = 256 * 1024;
// kube-apiserver answers 406 to a JWKS request that accepts only application/json.
const ACCEPT = 'application/json, application/jwk-set+json';

/** GET a JSON document over plain fetch (Google's certs, an OIDC issuer). No redirects. */
export async function fetchJson(url: string, signal: AbortSignal): Promise<unknown> {
  const res = await fetch(url, { method: 'GET', headers: { accept: ACCEPT }, redirect: 'error', signal });
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}`);
  const length = Number(res.headers.get('content-length') ?? 0);
  if (length > MAX_BODY) throw new Error(`GET ${url}: ${length} bytes is too large`);
  const text = await res.text();
  if (text.length > MAX_BODY) throw new Error(`GET ${url}: answer too large`);
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`GET ${url}: not JSON`);
  }
}

export function urlKeySource(url: string): KeySource {
  return { where: url, fetch: (signal) => fetchJson(url, signal) };
}

/**
 * GET a path of the API server with the cluster connection's own CA and credentials (in a pod:
 * the service-account token, re-read as it rotates). The default RBAC role
 * system:service-account-issuer-discovery lets every service account read the two documents.
 */
/** The cluster connection, or how to get it on first use (the client loads lazily at start). */
export type KubeConnection = KubeConfig | (() => Promise<KubeConfig>);

export async function kubeGetJson(connection: KubeConnection, path: string, signal: AbortSignal): Promise<unknown> {
  const kc = typeof connection === 'function' ? await connection() : connection;
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('the kubeconfig names no cluster');
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const url = new URL(server.replace(/\/+$/, '') + path);
  return new Promise((resolve, reject) => {
    const req = request(url, { ...opts, method: 'GET', headers: { ...opts.headers, accept: ACCEPT }, signal }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY) req.destroy(new Error(`GET ${path}: answer too large`));
        else chunks.push(chunk);
      });
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`GET ${path} from the API server: HTTP ${res.statusCode}`));
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          reject(new Error(`GET ${path} from the API server: not JSON`));
        }
      });
      res.on('error', reject);
    });
    req.on('error', (e) => reject(new Error(`GET ${path} from the API server: ${e.message}`)));
    req.end();
  });
}

/** The service-account issuer's keys, as the API server serves them (whatever jwks_uri says). */
export function kubeKeySource(kc: KubeConnection): KeySource {
  return { where: 'the API server (/openid/v1/jwks)', fetch: (signal) => kubeGetJson(kc, '/openid/v1/jwks', signal) };
}

/** The `issuer` (and `jwks_uri`) of an OIDC discovery document, checked to be strings. */
export function discoveryOf(doc: unknown, where: string): { issuer: string; jwksUri?: string } {
  const d = doc as { issuer?: unknown; jwks_uri?: unknown } | null;
  if (typeof d?.issuer !== 'string' || d.issuer === '') throw new Error(`${where}: discovery document has no issuer`);
  return { issuer: d.issuer, ...(typeof d.jwks_uri === 'string' ? { jwksUri: d.jwks_uri } : {}) };
}
