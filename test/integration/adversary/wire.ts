// What an attacker (or a careless client) puts on the wire, written by hand rather than with
// the cloudevents SDK: the SDK refuses to build much of what these tests must send (bad
// attributes, missing ids, odd encodings), and the point is to send it anyway.
import { gzipSync } from 'node:zlib';

export interface Wire {
  headers: Record<string, string>;
  body: string | Buffer;
  /** Default POST; a GET sends no body. */
  method?: string;
}

export const API_SERVER_SOURCE = 'https://10.96.0.1:443';

export interface EventOptions {
  verb?: 'add' | 'update' | 'delete';
  mode?: 'binary' | 'structured';
  /** Reference mode: the data is only apiVersion/kind/namespace/name. */
  reference?: boolean;
  id?: string;
  /** Header overrides for binary mode (undefined removes one). */
  headers?: Record<string, string | undefined>;
}

type Obj = { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } } & Record<string, unknown>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The CloudEvent Knative's ApiServerSource sends for `object`, in binary mode by default. */
export function apiServerSourceEvent(object: Obj, o: EventOptions = {}): Wire {
  const verb = o.verb ?? 'update';
  const kind = str(object.kind) || 'Pod';
  const apiVersion = str(object.apiVersion) || 'v1';
  const name = str(object.metadata?.name);
  const namespace = str(object.metadata?.namespace);
  const type = `dev.knative.apiserver.${o.reference ? 'ref' : 'resource'}.${verb}`;
  const data = o.reference ? { apiVersion, kind, name, namespace } : object;
  const attrs: Record<string, string> = {
    specversion: '1.0',
    id: o.id ?? `adv-${Math.random().toString(36).slice(2)}`,
    source: API_SERVER_SOURCE,
    type,
    subject: `/apis/${apiVersion}/namespaces/${namespace}/${kind.toLowerCase()}s/${name}`,
    kind,
    apiversion: apiVersion,
    name,
    ...(namespace ? { namespace } : {}),
  };
  if (o.mode === 'structured') {
    return { headers: { 'content-type': 'application/cloudevents+json' }, body: JSON.stringify({ ...attrs, datacontenttype: 'application/json', data }) };
  }
  const headers: Record<string, string | undefined> = { 'content-type': 'application/json' };
  // Header values cannot carry every byte a name may hold: what HTTP cannot say is left out.
  for (const [k, v] of Object.entries(attrs)) headers[`ce-${k}`] = /^[\t\x20-\x7e]*$/.test(v) ? v : encodeURIComponent(v);
  for (const [k, v] of Object.entries(o.headers ?? {})) headers[k] = v;
  return { headers: Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined)), body: JSON.stringify(data) };
}

/** A Knative PingSource tick. */
export function pingTick(source = 'sweep'): Wire {
  return {
    headers: {
      'content-type': 'application/json',
      'ce-specversion': '1.0',
      'ce-id': `tick-${Math.random().toString(36).slice(2)}`,
      'ce-source': `/apis/v1/namespaces/kube-tidy/pingsources/${source}`,
      'ce-type': 'dev.knative.sources.ping',
    },
    body: '{}',
  };
}

/** A plain JSON POST (invoke's requests, defrag's plan). */
export const json = (value: unknown, headers: Record<string, string> = {}): Wire => ({
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(value),
});

/**
 * A gzip bomb: `inflated` bytes of one JSON string of spaces, compressed (about 1,000:1), so
 * 200 MB travel as ~200 KB. Built once per size and reused.
 */
const bombs = new Map<number, Buffer>();
export function gzipBomb(inflated: number): Buffer {
  let b = bombs.get(inflated);
  if (!b) {
    const inner = Buffer.alloc(inflated, 0x20);
    inner.write('{"a":"', 0);
    inner.write('"}', inflated - 2);
    b = gzipSync(inner, { level: 9 });
    bombs.set(inflated, b);
  }
  return b;
}

export interface Answer {
  status: number;
  body: string;
  json?: Record<string, unknown>;
  ms: number;
}

/** POSTs `w` to `url`; a network failure answers status 0 with the reason in the body. */
export async function post(url: string, w: Wire, timeoutMs = 60_000): Promise<Answer> {
  const started = Date.now();
  try {
    const method = w.method ?? 'POST';
    const res = await fetch(url, {
      method,
      headers: w.headers,
      ...(method === 'GET' || method === 'HEAD' ? {} : { body: w.body }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = await res.text();
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = JSON.parse(body) as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body, ...(parsed ? { json: parsed } : {}), ms: Date.now() - started };
  } catch (e) {
    return { status: 0, body: String((e as Error).cause ?? e), ms: Date.now() - started };
  }
}
