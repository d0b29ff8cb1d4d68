// The 410 paths of the pager through the real client (client-node, kubeClients' middleware)
// against a stub HTTP server: a test cluster cannot expire a continue token on demand (etcd
// must compact the snapshot between two pages). The paging itself is tested against the real
// API server in test/integration/kube and test/integration/multikueue.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEach } from '../multikueue/io/list.js';
import { compactRemote } from '../multikueue/io/compact.js';
import { BATCH_JOB } from '../multikueue/core/kinds.js';
import { kubeClients, type KubeClients } from './clients.js';
import { TransientKubeError } from './errors.js';
import { listPods } from './list.js';
import { listEverything } from './pager.js';
import { tallied } from './request-tally.js';
import { stubKubeConfig } from '../../test/fixtures/offline.js';

type Reply = { status: number; body: unknown };
const list = (names: string[], next?: string, resourceVersion?: string): Reply => ({
  status: 200,
  body: {
    kind: 'List',
    apiVersion: 'v1',
    metadata: { ...(next ? { continue: next } : {}), ...(resourceVersion ? { resourceVersion } : {}) },
    items: names.map((name) => ({ metadata: { name } })),
  },
});
const expired = (token?: string): Reply => ({
  status: 410,
  body: {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    reason: 'Expired',
    code: 410,
    message: 'The provided continue parameter is too old',
    metadata: token ? { continue: token } : {},
  },
});

let replies: Reply[] = [];
const seen: { limit: string | null; continue: string | null }[] = [];
let server: Server;
let clients: KubeClients;

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    seen.push({ limit: url.searchParams.get('limit'), continue: url.searchParams.get('continue') });
    const reply = replies.shift() ?? { status: 500, body: { kind: 'Status', code: 500, message: 'no more replies' } };
    res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const kc = stubKubeConfig((server.address() as AddressInfo).port);
  clients = kubeClients(kc, { timeoutMs: 5_000, keepAlive: false });
});

afterAll(async () => {
  clients.close();
  await new Promise((ok) => server.close(ok));
});

function script(r: Reply[]) {
  replies = r;
  seen.length = 0;
}

describe('an expired continue token', () => {
  it('restarts a collecting list (MultiKueue) with one full list: the pages before it are dropped', async () => {
    script([list(['a'], 't1'), list(['b'], 't2'), expired('t2-inconsistent'), list(['a', 'c'])]);
    const got = await listEach(clients, BATCH_JOB, compactRemote, undefined, 1);
    expect(got.items.map((o) => o.metadata.name)).toEqual(['a', 'c']);
    expect(got.requests).toBe(4);
    expect(seen).toEqual([
      { limit: '1', continue: null },
      { limit: '1', continue: 't1' },
      { limit: '1', continue: 't2' },
      { limit: null, continue: null },
    ]);
  });

  it("answers the restarted full list's resourceVersion, where a watch of the collected set starts (standalone's namespaces)", async () => {
    script([list(['a'], 't1', '10'), expired('t1-inconsistent'), list(['a', 'b'], undefined, '42')]);
    const got = await listEverything((page) => clients.core.listNamespace(page), { what: 'list namespaces', limit: 1 });
    expect(got.items.map((o) => o.metadata?.name)).toEqual(['a', 'b']);
    expect(got.resourceVersion).toBe('42');
  });

  it('keeps what `keep` maps each item to, page by page (undefined: left out), and drops what it kept before a restart', async () => {
    script([list(['a', 'skip'], 't1'), list(['b'], 't2'), expired('t2-inconsistent'), list(['a', 'skip', 'c'])]);
    const seenNames: string[] = [];
    const keep = (o: { metadata?: { name?: string } }) => {
      seenNames.push(o.metadata?.name ?? '');
      return o.metadata?.name === 'skip' ? undefined : o.metadata!.name!.toUpperCase();
    };
    const got = await listEverything((page) => clients.core.listNamespace(page), { what: 'list namespaces', limit: 2 }, keep);
    expect(got.items).toEqual(['A', 'C']);
    expect(seenNames).toEqual(['a', 'skip', 'b', 'a', 'skip', 'c']);
    expect(got.requests).toBe(4);
  });

  it('fails a collecting list as transient when the full list expires too', async () => {
    script([list(['a'], 't1'), expired('x'), expired()]);
    await expect(listEach(clients, BATCH_JOB, compactRemote, undefined, 1)).rejects.toThrow(TransientKubeError);
  });

  it('goes on with the inconsistent token in a page-by-page list (pods), marking the pages after it', async () => {
    script([list(['a'], 't1'), expired('t1-inconsistent'), list(['b'])]);
    // With each page, the requests sent so far as the client counted them: the 410 was one.
    const pages = await tallied(async (t) => {
      const out = [];
      for await (const p of listPods(clients.core, { namespace: 'ns', limit: 1 })) out.push([p.items[0]?.metadata.name, p.page, t.sent, p.inconsistent]);
      return out;
    });
    expect(pages).toEqual([
      ['a', 1, 1, false],
      ['b', 2, 3, true],
    ]);
    expect(seen.map((s) => s.continue)).toEqual([null, 't1', 't1-inconsistent']);
  });
});

describe('a list resumed from a continue token (a sweep going on where its last tick stopped)', () => {
  it('starts from the token, says each page’s next token, and an expired one goes on inconsistent as any page would', async () => {
    script([list(['c'], 't3'), list(['d'])]);
    const got = [];
    for await (const p of listPods(clients.core, { namespace: 'ns', limit: 1, from: 't2' })) got.push([p.items[0]?.metadata.name, p.next]);
    expect(got).toEqual([
      ['c', 't3'],
      ['d', undefined],
    ]);
    expect(seen.map((s) => s.continue)).toEqual(['t2', 't3']);

    script([expired('t2-inconsistent'), list(['c'])]);
    const after = [];
    for await (const p of listPods(clients.core, { namespace: 'ns', limit: 1, from: 't2' })) after.push([p.items[0]?.metadata.name, p.inconsistent]);
    expect(after).toEqual([['c', true]]);
  });
});
