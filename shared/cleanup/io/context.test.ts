// What fetchContext says it sent, through the real client (kubeClients' middleware) against a
// stub HTTP server: the requests that left, a LIST the API server throttled and that was sent
// again included (a request counted per LIST made would miss it).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeClients, type KubeClients } from '../../kube/clients.js';
import type { PassSettings } from '../handle.js';
import { fetchContext } from './context.js';
import { stubKubeConfig } from '../../../test/fixtures/offline.js';

const seen: string[] = [];
let throttleNext = false;
let server: Server;
let clients: KubeClients;

const list = (names: string[], next?: string) => ({
  kind: 'List',
  apiVersion: 'v1',
  metadata: next ? { continue: next } : {},
  items: names.map((name) => ({ metadata: { name, namespace: 'ns', uid: name } })),
});

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    seen.push(`${url.pathname}${url.searchParams.get('continue') ? ` continue=${url.searchParams.get('continue')}` : ''}`);
    // API Priority and Fairness's answer: plain text, which the client pauses on and sends again.
    if (throttleNext) {
      throttleNext = false;
      res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '1' }).end('Too many requests, please try again later.');
      return;
    }
    const body =
      url.pathname === '/api/v1/nodes' ? list(['n1']) : url.searchParams.get('continue') ? list(['p2']) : ((throttleNext = true), list(['p1'], 'page-2'));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const kc = stubKubeConfig((server.address() as AddressInfo).port);
  clients = kubeClients(kc, { timeoutMs: 5_000, keepAlive: false });
});

afterAll(async () => {
  clients.close();
  await new Promise((ok) => server.close(ok));
});

const settings: PassSettings = { pageSize: 1, concurrency: 1, budgetMs: 10_000, eventsPerPass: 0, protectedNamespaces: [], recordEvents: false, dryRun: false };
const none = { nodes: false, namespaces: false, pdbs: false, priorityClasses: false, pvcs: false, allPods: false };

describe('fetchContext', () => {
  it('counts every request it sent, a throttled LIST page sent again as two', async () => {
    const got = await fetchContext({ reader: clients, settings }, { ...none, nodes: true, allPods: true });
    expect(got.snapshot.contextPods?.map((p) => p.metadata.name)).toEqual(['p1', 'p2']);
    expect(got.snapshot.nodes).toHaveLength(1);
    // The nodes, the first page of pods, the second page throttled (429) and the same page again.
    expect([...seen].sort()).toEqual(['/api/v1/nodes', '/api/v1/pods', '/api/v1/pods continue=page-2', '/api/v1/pods continue=page-2']);
    expect(got.requests).toBe(4);
    expect(clients.throttle.throttled).toBe(1);
  });

  it('sends nothing, and says so, when the policy reads nothing beyond the pods', async () => {
    seen.length = 0;
    expect(await fetchContext({ reader: clients, settings }, none)).toEqual({ snapshot: {}, requests: 0 });
    expect(seen).toEqual([]);
  });
});
