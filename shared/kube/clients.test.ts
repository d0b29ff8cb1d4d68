// The CLI's --timeout as the clients see it (`endsAt`): against a stub server that answers
// late, no request is sent once it has passed and one in flight is cut off at it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeClients } from './clients.js';
import { tallied } from './request-tally.js';
import { stubKubeConfig } from '../../test/fixtures/offline.js';
import { STORAGE_INITIALIZING } from '../../test/fixtures/api-status.js';

let server: Server;
let received = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    received++;
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"kind":"NamespaceList","items":[]}'), 1500);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
});
afterAll(() => new Promise((ok) => server.close(ok)));

const port = () => (server.address() as AddressInfo).port;

describe('endsAt: the command deadline', () => {
  it('cuts a request in flight off at the deadline, not at its own (longer) timeout', async () => {
    const c = kubeClients(stubKubeConfig(port()), { timeoutMs: 30_000, keepAlive: false, endsAt: Date.now() + 300 });
    const t0 = performance.now();
    await expect(c.core.listNamespace()).rejects.toThrow();
    expect(performance.now() - t0).toBeLessThan(1400); // the server answers after 1.5 s
    c.close();
  });

  it('sends nothing once it has passed', async () => {
    const before = received;
    const c = kubeClients(stubKubeConfig(port()), { timeoutMs: 30_000, keepAlive: false, endsAt: Date.now() - 1 });
    const counted = await tallied(async (t) => {
      await expect(c.core.listNamespace()).rejects.toThrow(/past the command deadline/);
      return t.sent;
    });
    expect(counted).toBe(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(received).toBe(before);
    c.close();
  });

  it('without it, a request waits for the answer', async () => {
    const c = kubeClients(stubKubeConfig(port()), { timeoutMs: 30_000, keepAlive: false });
    await expect(c.core.listNamespace()).resolves.toMatchObject({ items: [] });
    c.close();
  });
});

describe("client-node's reads while a resource's storage starts", () => {
  it('sends a read again after a Status 429 Retry-After, and a write never', async () => {
    let n = 0;
    const stub = createServer((req, res) => {
      n++;
      if (req.method === 'GET' && n > 1) return res.writeHead(200, { 'content-type': 'application/json' }).end('{"kind":"NamespaceList","items":[]}');
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end(STORAGE_INITIALIZING);
    });
    await new Promise<void>((ok) => stub.listen(0, '127.0.0.1', ok));
    const c = kubeClients(stubKubeConfig((stub.address() as AddressInfo).port), { keepAlive: false, throttledRetries: 3 });
    try {
      await expect(c.core.listNamespace()).resolves.toMatchObject({ items: [] });
      expect(n).toBe(2);
      n = 0;
      await expect(c.core.createNamespace({ body: { metadata: { name: 'x' } } })).rejects.toThrow();
      expect(n).toBe(1);
    } finally {
      c.close();
      await new Promise((ok) => stub.close(ok));
    }
  });
});
