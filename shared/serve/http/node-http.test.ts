// The production server's own node:http adapter (node-http.ts) answers every request as
// functions-framework's app answered it through the framework adapter (functions-framework.ts): the same
// status for every request, and for every JSON answer the same body and headers. Each case is
// sent, byte for byte, to both; the framework's own error pages (an HTML page for a body its
// parsers refused, an empty 404) are compared by status, and the adapter's own answer there
// is checked to be JSON naming the problem.
import { mkdtempSync } from 'node:fs';
import { createServer, request, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpMessage, pubSubMessage, toApiServerSourceEvent } from '../../cloudevents/encode.js';
import { startRuntime, type Runtime } from '../../runtime/runtime.js';
import { front } from './front.js';
import { httpFunction } from './functions-framework.js';
import { nodeHttpTarget } from './node-http.js';
import { senderAuthOf } from './senders.js';
import { defineTarget, type Input, type TargetSpec } from '../target.js';
import { offlineKubeconfig } from '../../../test/fixtures/offline.js';

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-node-http-'));
// Parsed, never dialled.
const kubeconfig = offlineKubeconfig(dir);

/** What the handler was given, as JSON can say it: the two adapters must hand it the same. */
const echo = (input: Input) =>
  input.type === 'body'
    ? { type: 'body', body: input.body === undefined ? '(undefined)' : input.body }
    : input.type === 'object' || input.type === 'reference'
      ? { type: input.type, namespace: input.namespace, name: input.name, kind: input.type === 'object' ? input.event.object.kind : input.event.ref.kind }
      : { type: input.type };

// The two ways a target takes a plain POST: as a body (invoke, defrag) and as a tick (sweep).
const probes = (['body', 'tick'] as const).map((plain) =>
  defineTarget({
    name: `echo-${plain}`,
    accepts: { kinds: ['Pod'], ticks: true, shards: true, plain, hint: 'echo takes anything' },
    needs: { policy: false, cluster: 'on-demand' },
    setup: () => ({}),
    handle: async (input: Input) => ({ outcome: 'echoed', input: echo(input) }),
  }),
) as TargetSpec<unknown>[];

interface Sent {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Sent without a Content-Length, as chunks. */
  chunked?: boolean;
}
interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function send(port: number, s: Sent): Promise<Got> {
  return new Promise((resolve, reject) => {
    const body = s.body === undefined ? undefined : Buffer.from(s.body);
    const headers: Record<string, string | number> = { ...s.headers };
    if (body && !s.chunked) headers['content-length'] = body.length;
    const req = request({ host: '127.0.0.1', port, method: s.method ?? 'POST', path: s.path ?? '/', headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    if (body && s.chunked) for (let i = 0; i < body.length; i += 7) req.write(body.subarray(i, i + 7));
    else if (body) req.write(body);
    req.end();
  });
}

const listen = async (app: RequestListener): Promise<Server> => {
  const server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
};
const portOf = (s: Server) => (s.address() as AddressInfo).port;

let rt: Runtime;
const servers: Record<string, { framework: Server; node: Server }> = {};

beforeAll(async () => {
  rt = await startRuntime({ KUBECONFIG: kubeconfig, SENDER_AUTH: 'none' }, { log: pino({ level: 'silent' }) }, { lazyKube: true, needsPolicy: false });
  for (const spec of probes) {
    http(`parity-${spec.name}`, httpFunction(spec, rt));
    servers[spec.name] = {
      framework: await listen(getTestServer(`parity-${spec.name}`).listeners('request')[0] as RequestListener),
      node: await listen(nodeHttpTarget(spec, {}, rt, { auth: senderAuthOf(rt), maxBytes: rt.config.MAX_BODY_BYTES })),
    };
  }
});
afterAll(() =>
  Promise.all(
    Object.values(servers)
      .flatMap((s) => [s.framework, s.node])
      .map((s) => new Promise((r) => s.close(r))),
  ),
);

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'ml', uid: 'u-1', creationTimestamp: '2026-01-01T00:00:00Z' },
  status: { phase: 'Running' },
};
const podEvent = (mode: 'binary' | 'structured') => httpMessage(toApiServerSourceEvent('update', pod, 'https://api.example'), mode);
const json = { 'content-type': 'application/json' };
const ping = { 'ce-specversion': '1.0', 'ce-id': 'p-1', 'ce-source': '/apis/v1/namespaces/kube-tidy/pingsources/sweep', 'ce-type': 'dev.knative.sources.ping' };
const pushed = (() => {
  const m = pubSubMessage(toApiServerSourceEvent('update', pod, 'https://api.example'));
  return JSON.stringify({ message: { ...m, messageId: '1', publishTime: '2026-01-01T00:00:00Z' }, subscription: 'projects/p/subscriptions/s' });
})();

const cases: [string, Sent][] = [
  ['a JSON body', { headers: json, body: '{"mode":"plan"}' }],
  ['a JSON body with a charset and odd spacing and case', { headers: { 'content-type': 'Application/JSON ; charset="UTF-8"' }, body: '{"a":1}' }],
  ['a JSON array', { headers: json, body: '[1,2]' }],
  ['a JSON body after a byte-order mark', { headers: json, body: '\uFEFF{"a":1}' }],
  ['an empty JSON body (Content-Length: 0)', { headers: json, body: '' }],
  ['a JSON body of whitespace', { headers: json, body: '  \n' }],
  ['a JSON string at the top', { headers: json, body: '"plan"' }],
  ['broken JSON', { headers: json, body: '{not json' }],
  ['JSON in Latin-1', { headers: { 'content-type': 'application/json; charset=latin1' }, body: '{"a":1}' }],
  ['JSON in a charset nobody knows', { headers: { 'content-type': 'application/json; charset=utf-9' }, body: '{"a":1}' }],
  ['JSON too deep to walk', { headers: json, body: '['.repeat(100) + ']'.repeat(100) }],
  ['a chunked JSON body', { headers: json, body: '{"mode":"plan","namespaces":["a","b"]}', chunked: true }],
  ['JSON as text/json (bytes to the decoder)', { headers: { 'content-type': 'text/json' }, body: '{"a":1}' }],
  ['JSON with a +json type', { headers: { 'content-type': 'application/merge-patch+json' }, body: '{"a":1}' }],
  ['text', { headers: { 'content-type': 'text/plain' }, body: 'hello' }],
  ['text in Latin-1', { headers: { 'content-type': 'text/plain; charset=iso-8859-1' }, body: Buffer.from([0x63, 0x61, 0x66, 0xe9]) }],
  ['text in a charset nobody knows', { headers: { 'content-type': 'text/plain; charset=x-nothing' }, body: 'hello' }],
  ['a form', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'mode=plan&n=a&n=b&x=%20y+z' }],
  ['an empty form', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' }],
  ['a form in UTF-16', { headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-16' }, body: 'a=b' }],
  ['bytes', { headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from([0, 1, 2, 255]) }],
  ['no Content-Type', { body: '{"a":1}' }],
  ['a Content-Type that does not parse (a trailing ;)', { headers: { 'content-type': 'application/json;' }, body: '{"a":1}' }],
  ['a Content-Type that does not parse (no subtype)', { headers: { 'content-type': 'application' }, body: '{"a":1}' }],
  ['a Content-Type that does not parse (a dot in the type)', { headers: { 'content-type': 'app.lication/json' }, body: '{"a":1}' }],
  ['a Content-Type with a space inside', { headers: { 'content-type': 'application/js on' }, body: '{"a":1}' }],
  ['a charset with no value', { headers: { 'content-type': 'application/json; charset' }, body: '{"a":1}' }],
  ['a charset given twice (the first counts)', { headers: { 'content-type': 'text/plain; charset=utf-8; charset=x-nothing' }, body: 'hello' }],
  ['a quoted charset holding a ;', { headers: { 'content-type': 'text/plain; charset="utf-8;x"' }, body: 'hello' }],
  ['a charset behind a parameter with no value', { headers: { 'content-type': 'text/plain; v; charset=x-nothing' }, body: 'hello' }],
  ['JSON in UTF-16', { headers: { 'content-type': 'application/json; charset=utf-16le' }, body: Buffer.from('{"a":"é"}', 'utf16le') }],
  ['JSON that is not UTF-8', { headers: json, body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]) }],
  ['no body at all', {}],
  ['a GET', { method: 'GET' }],
  ['a HEAD', { method: 'HEAD' }],
  ['a PUT with a JSON body', { method: 'PUT', headers: json, body: '{"a":1}' }],
  ['a GET with a broken JSON body', { method: 'GET', headers: json, body: '{not json' }],
  ['another path, with a query', { path: '/hooks/x?y=1', headers: json, body: '{"a":1}' }],
  ['a path that does not decode', { path: '/%zz/%E0%A4%A', headers: json, body: '{"a":1}' }],
  ['an OPTIONS of *', { method: 'OPTIONS', path: '*' }],
  ['a path that does not decode, with a broken body', { path: '/%zz', headers: json, body: '{not' }],
  ['an absolute URL as the target', { path: 'http://example.com/robots.txt', headers: json, body: '{"a":1}' }],
  ['an absolute URL to the root', { path: 'http://example.com/?x', headers: json, body: '{"a":1}' }],
  ['a GET of /favicon.ico', { method: 'GET', path: '/favicon.ico' }],
  ['a GET of /favicon.ico with a query', { method: 'GET', path: '/favicon.ico?v=2' }],
  ['a GET of /favicon.icox (not it)', { method: 'GET', path: '/favicon.icox' }],
  ['a POST to /robots.txt', { path: '/robots.txt', headers: json, body: '{"a":1}' }],
  ['a POST below /Favicon.ico', { path: '/Favicon.ico/x', headers: json, body: '{"a":1}' }],
  ['a POST of broken JSON to /robots.txt', { path: '/robots.txt', headers: json, body: '{not' }],
  ['a Pod event, binary mode', { ...podEvent('binary') }],
  ['a Pod event, structured mode', { ...podEvent('structured') }],
  [
    'a Pod event, structured mode with a charset',
    { headers: { 'content-type': 'application/cloudevents+json; charset=utf-8' }, body: podEvent('structured').body },
  ],
  ['a Pod event, binary mode, chunked', { ...podEvent('binary'), chunked: true }],
  ['a ConfigMap event (a kind not taken)', { ...httpMessage(toApiServerSourceEvent('update', { ...pod, kind: 'ConfigMap' }, 'https://api.example')) }],
  ['a batch of CloudEvents', { headers: { 'content-type': 'application/cloudevents-batch+json' }, body: '[]' }],
  ['a ping, JSON data', { headers: { ...ping, 'content-type': 'application/json' }, body: '{"x":1}' }],
  ['a ping, text data', { headers: { ...ping, 'content-type': 'text/plain' }, body: 'hello' }],
  ['a ping, no data', { headers: ping }],
  ['a Pub/Sub push', { headers: json, body: pushed }],
  ['a Pub/Sub push as text', { headers: { 'content-type': 'text/plain' }, body: pushed }],
];

describe.each(probes.map((p) => p.name))('%s: the node:http adapter answers as functions-framework did', (name) => {
  it.each(cases)('%s', async (_, sent) => {
    const [framework, node] = await Promise.all([send(portOf(servers[name]!.framework), sent), send(portOf(servers[name]!.node), sent)]);
    expect(node.status).toBe(framework.status);
    if (framework.headers['content-type'] === 'application/json; charset=utf-8') {
      // A JSON answer: the resolver's, through either adapter.
      for (const h of ['content-type', 'content-length', 'allow', 'retry-after', 'www-authenticate'])
        expect([h, node.headers[h]]).toEqual([h, framework.headers[h]]);
      expect(node.text).toBe(framework.text);
    } else if (framework.status === 404) {
      expect([node.headers['content-length'], node.headers['content-type'], node.text]).toEqual(['0', undefined, '']);
    } else {
      // The framework's error page for a body its parsers refused: here, JSON saying why.
      expect(node.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(node.text)).toMatchObject({ target: name, error: expect.stringMatching(/JSON|charset|path/) });
    }
  });
});

describe('the body is bounded while it streams', () => {
  it('behind the front, as server.ts serves it: a chunked body past the bound is refused 413 and never handled; one under it is served', async () => {
    let handled = 0;
    const spec = { ...probes[0]!, handle: async (input: Input) => (handled++, { outcome: 'echoed', input: echo(input) }) };
    const auth = senderAuthOf(rt);
    const server = await listen(
      front(nodeHttpTarget(spec, {}, rt, { auth, maxBytes: 1024 }), {
        auth,
        maxBytes: 1024,
        target: spec.name,
        log: pino({ level: 'silent' }),
        metrics: rt.metrics,
      }),
    );
    try {
      const under = await send(portOf(server), { headers: json, body: JSON.stringify({ pad: 'x'.repeat(900) }), chunked: true });
      expect(JSON.parse(under.text)).toMatchObject({ outcome: 'echoed', input: { type: 'body', body: { pad: 'x'.repeat(900) } } });
      const over = await send(portOf(server), { headers: json, body: JSON.stringify({ pad: 'x'.repeat(4000) }), chunked: true }).catch(
        (e: NodeJS.ErrnoException): Got => ({ status: e.code === 'ECONNRESET' || e.code === 'EPIPE' ? -1 : 0, headers: {}, text: '' }),
      );
      expect([413, -1]).toContain(over.status);
      expect(handled).toBe(1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('alone, what the front refuses on headers is refused too: a compressed body 415, a declared length past the bound 413', async () => {
    const server = await listen(nodeHttpTarget(probes[0]!, {}, rt, { auth: senderAuthOf(rt), maxBytes: 1024 }));
    try {
      const gzip = await send(portOf(server), { headers: { ...json, 'content-encoding': 'gzip' }, body: 'x' });
      expect([gzip.status, JSON.parse(gzip.text)]).toEqual([415, expect.objectContaining({ error: expect.stringMatching(/content-encoding gzip/) })]);
      const long = await send(portOf(server), { headers: json, body: JSON.stringify({ pad: 'x'.repeat(2000) }) }).catch((e: NodeJS.ErrnoException): Got => ({
        status: e.code === 'ECONNRESET' || e.code === 'EPIPE' ? -1 : 0,
        headers: {},
        text: '',
      }));
      expect([413, -1]).toContain(long.status);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('a chunked body (no length to refuse it by) past the bound: 413, connection closed, never handled', async () => {
    let handled = 0;
    const spec = { ...probes[0]!, handle: async (input: Input) => (handled++, { outcome: 'echoed', input: echo(input) }) };
    const server = await listen(nodeHttpTarget(spec, {}, rt, { auth: senderAuthOf(rt), maxBytes: 1024 }));
    try {
      const under = await send(portOf(server), { headers: json, body: JSON.stringify({ pad: 'x'.repeat(900) }), chunked: true });
      expect(under.status).toBe(200);
      // The server may close the connection before everything is written: that is the point.
      const over = await send(portOf(server), { headers: json, body: JSON.stringify({ pad: 'x'.repeat(4000) }), chunked: true }).catch(
        (e: NodeJS.ErrnoException): Got => ({ status: e.code === 'ECONNRESET' || e.code === 'EPIPE' ? -1 : 0, headers: {}, text: '' }),
      );
      expect([413, -1]).toContain(over.status);
      if (over.status === 413) {
        expect(over.headers['connection']).toBe('close');
        expect(JSON.parse(over.text)).toMatchObject({ error: 'the body is over 1024 bytes, the most accepted' });
      }
      expect(handled).toBe(1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
