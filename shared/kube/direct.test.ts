// The direct DELETE (direct.ts, direct-pods.ts) against a stub server, for what a real API
// server will not do on demand: throttle, answer 401 to a token, answer slowly. What it sends and
// how the API server's answers are read is checked on the real one (test/integration/kube/).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { kubeClients } from './clients.js';
import { DirectRequests, IDENTITY_TTL_MS } from './direct.js';
import { RequestLifecycle } from './request-lifecycle.js';
import { Throttle } from './throttle.js';
import { classifyKubeError } from './errors.js';
import { tallied } from './request-tally.js';
import { MetricsRecorder } from '../metrics/recorder.js';
import { stubKubeConfig } from '../../test/fixtures/offline.js';
import { STORAGE_INITIALIZING } from '../../test/fixtures/api-status.js';

interface Seen {
  method: string;
  url: string;
  body: string;
  authorization: string | undefined;
}
let server: Server;
let seen: Seen[] = [];
let answer: (req: IncomingMessage, res: ServerResponse, n: number) => void = () => {};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, body, authorization: req.headers.authorization });
      answer(req, res, seen.length);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
});
afterAll(() => new Promise((ok) => server.close(ok)));
beforeEach(() => {
  seen = [];
});

const port = () => (server.address() as AddressInfo).port;
/** A request lifecycle of its own for a DirectRequests over `kc`: no command deadline, no metrics. */
const lifecycleOf = (kc: ReturnType<typeof stubKubeConfig>) =>
  new RequestLifecycle({
    timeoutMs: 5000,
    throttle: new Throttle({ qps: 100, burst: 100 }),
    server: kc.getCurrentCluster()!.server,
    metrics: MetricsRecorder.off(),
  });
const target = { name: 'p-1', namespace: 'ml', body: { preconditions: { uid: 'u1', resourceVersion: '7' }, propagationPolicy: 'Background' } };
const status = (code: number, reason: string) =>
  JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    reason,
    message: `pods "p-1" ${reason}`,
    details: { name: 'p-1', kind: 'pods' },
  });

describe('the direct pod DELETE', () => {
  it('sends the DELETE client-node sends (path, dry run, body) and answers a 2xx without its body', async () => {
    answer = (_q, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Pod', metadata: { name: 'p-1' }, pad: 'x'.repeat(100_000) }));
    const kc = stubKubeConfig(port());
    (kc.getCurrentUser() as { token?: string }).token = 'tok';
    const c = kubeClients(kc);
    expect(await c.podWrites.deleteNamespacedPod({ ...target, dryRun: 'All' })).toBe(200);
    expect(seen).toEqual([
      { method: 'DELETE', url: '/api/v1/namespaces/ml/pods/p-1?dryRun=All', body: JSON.stringify(target.body), authorization: 'Bearer tok' },
    ]);
    c.close();
  });

  it('counts the request where every request is counted: the open tally, the throttle, the metrics', async () => {
    answer = (_q, res) => res.writeHead(200).end('{}');
    const metrics = MetricsRecorder.off();
    const record = vi.spyOn(metrics, 'record');
    const c = kubeClients(stubKubeConfig(port()), { metrics });
    const sent = await tallied(async (t) => (await c.podWrites.deleteNamespacedPod(target), t.sent));
    expect(sent).toBe(1);
    expect(c.throttle.sent).toBe(1);
    expect(record.mock.calls).toEqual([
      ['apiRequests', 1, { method: 'DELETE', host: `127.0.0.1:${port()}` }],
      ['apiResponses', 1, { host: `127.0.0.1:${port()}`, code: '200' }],
    ]);
    c.close();
  });

  it('throws an error answer as client-node does: the Status is read by errors.ts (a conflict about the pod)', async () => {
    answer = (_q, res) => res.writeHead(409, { 'content-type': 'application/json' }).end(status(409, 'Conflict'));
    const c = kubeClients(stubKubeConfig(port()));
    const failure = classifyKubeError(await c.podWrites.deleteNamespacedPod(target).catch((e: unknown) => e));
    expect(failure).toMatchObject({ kind: 'conflict', status: 409, reason: 'Conflict', detailsKind: 'pods' });
    c.close();
  });

  it("sends a request the server's own throttling refused again after its pause, and only that", async () => {
    answer = (_q, res, n) =>
      n === 1 ? res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '1' }).end('Too many requests') : res.writeHead(200).end('{}');
    const c = kubeClients(stubKubeConfig(port()), { throttledRetries: 2 });
    expect(await c.podWrites.deleteNamespacedPod(target)).toBe(200);
    expect(seen).toHaveLength(2);
    expect(c.throttle.throttled).toBe(1);
    c.close();
  });

  it('a 429 that is a Status (a budget, a webhook) is an answer, never sent again', async () => {
    answer = (_q, res) => res.writeHead(429, { 'content-type': 'application/json' }).end(status(429, 'TooManyRequests'));
    const c = kubeClients(stubKubeConfig(port()), { throttledRetries: 2 });
    const failure = classifyKubeError(await c.podWrites.deleteNamespacedPod(target).catch((e: unknown) => e));
    expect(failure).toMatchObject({ kind: 'too-many-requests' });
    expect(failure.throttled).toBeUndefined();
    expect(seen).toHaveLength(1);
    c.close();
  });

  it('a read answered a Status 429 with a Retry-After (storage still starting) is sent again after it; a write answered so is an answer', async () => {
    answer = (_q, res, n) =>
      n === 1
        ? res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end(STORAGE_INITIALIZING)
        : res.writeHead(200).end('{"items":[]}');
    const kc = stubKubeConfig(port());
    const lifecycle = lifecycleOf(kc);
    const direct = new DirectRequests(kc, lifecycle, undefined, 2);
    const t0 = performance.now();
    expect(await direct.getJson('/api/v1/pods?limit=500')).toEqual({ items: [] });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(900);
    expect(seen.map((s) => s.method)).toEqual(['GET', 'GET']);
    seen = [];
    answer = (_q, res) => res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end(STORAGE_INITIALIZING);
    const failure = classifyKubeError(await direct.send('DELETE', '/api/v1/namespaces/ml/pods/a', {}).catch((e: unknown) => e));
    expect(failure).toMatchObject({ status: 429, retryAfterSeconds: 1 });
    expect(seen).toHaveLength(1);
  });

  it('a read answered a Status 429 without a Retry-After is the answer', async () => {
    answer = (_q, res) => res.writeHead(429, { 'content-type': 'application/json' }).end(status(429, 'TooManyRequests'));
    const kc = stubKubeConfig(port());
    const lifecycle = lifecycleOf(kc);
    await expect(new DirectRequests(kc, lifecycle, undefined, 2).getJson('/api/v1/pods')).rejects.toThrow(/429/);
    expect(seen).toHaveLength(1);
  });

  it('a 401 reads the credentials again and sends once more; a second 401 is the answer', async () => {
    answer = (_q, res) => res.writeHead(401, { 'content-type': 'application/json' }).end(status(401, 'Unauthorized'));
    const kc = stubKubeConfig(port());
    const c = kubeClients(kc);
    const failure = classifyKubeError(await c.podWrites.deleteNamespacedPod(target).catch((e: unknown) => e));
    expect(failure.kind).toBe('unauthorized');
    expect(seen).toHaveLength(2);
    c.close();
  });

  it('sends the credentials the KubeConfig has after a 401 (a rotated token), not the ones it read first', async () => {
    const kc = stubKubeConfig(port());
    const user = kc.getCurrentUser() as { token?: string };
    user.token = 'old';
    answer = (req, res) => (req.headers.authorization === 'Bearer new' ? res.writeHead(200).end('{}') : res.writeHead(401).end('{}'));
    const c = kubeClients(kc);
    await expect(c.podWrites.deleteNamespacedPod(target)).rejects.toThrow();
    user.token = 'new';
    expect(await c.podWrites.deleteNamespacedPod(target)).toBe(200);
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer old', 'Bearer old', 'Bearer old', 'Bearer new']);
    c.close();
  });

  it('reads the credentials again after IDENTITY_TTL_MS, and not before (a token file the kubelet rotates)', async () => {
    answer = (_q, res) => res.writeHead(200).end('{}');
    const kc = stubKubeConfig(port());
    const user = kc.getCurrentUser() as { token?: string };
    user.token = 'first';
    let now = 0;
    const lifecycle = lifecycleOf(kc);
    const direct = new DirectRequests(kc, lifecycle, undefined, 0, () => now);
    await direct.send('DELETE', '/api/v1/namespaces/ml/pods/a', {});
    user.token = 'second';
    now = IDENTITY_TTL_MS - 1;
    await direct.send('DELETE', '/api/v1/namespaces/ml/pods/a', {});
    now = IDENTITY_TTL_MS + 1;
    await direct.send('DELETE', '/api/v1/namespaces/ml/pods/a', {});
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer first', 'Bearer first', 'Bearer second']);
  });

  it('is cut off at the command deadline and sends nothing after it', async () => {
    answer = (_q, res) => setTimeout(() => res.writeHead(200).end('{}'), 1500);
    const late = kubeClients(stubKubeConfig(port()), { endsAt: Date.now() + 300 });
    const t0 = performance.now();
    expect(classifyKubeError(await late.podWrites.deleteNamespacedPod(target).catch((e: unknown) => e)).kind).toBe('transient');
    expect(performance.now() - t0).toBeLessThan(1400);
    const past = kubeClients(stubKubeConfig(port()), { endsAt: Date.now() - 1 });
    // Not sent, so not counted as sent either (the tally, the metrics).
    const counted = await tallied(async (t) => {
      await expect(past.podWrites.deleteNamespacedPod(target)).rejects.toThrow(/past the command deadline/);
      return t.sent;
    });
    expect(counted).toBe(0);
    expect(seen).toHaveLength(1);
    late.close();
    past.close();
  });

  it('is cut off by its own timeout while the answer is still coming (a LIST page that stalls)', async () => {
    answer = (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).write('{"kind":"PodList","items":[');
      setTimeout(() => res.end(']}'), 2000);
    };
    const c = kubeClients(stubKubeConfig(port()), { timeoutMs: 300 });
    const t0 = performance.now();
    const failure = classifyKubeError(await c.podReads.listPodForAllNamespaces({ limit: 1 }).catch((e: unknown) => e));
    expect(failure.kind).toBe('transient');
    expect(failure.message).toMatch(/timed out/);
    expect(performance.now() - t0).toBeLessThan(1500);
    c.close();
  });

  it("refuses a name the path guard refuses ('..'), before anything is sent", async () => {
    const c = kubeClients(stubKubeConfig(port()));
    await expect(c.podWrites.deleteNamespacedPod({ ...target, name: '..' })).rejects.toThrow(/refused to send DELETE/);
    expect(seen).toHaveLength(0);
    c.close();
  });
});
