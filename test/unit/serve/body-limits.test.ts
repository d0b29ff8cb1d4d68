// The production server's body limits (shared/serve/http/limits.ts), in front of functions-
// framework's own app with its real parsers, over real HTTP on loopback.
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gracefulServer } from '../../../shared/hosts/server/graceful.js';
import { withBodyLimits } from '../../../shared/serve/http/limits.js';

const MAX = 64 * 1024;
let server: Server;
let port: number;
let bodiesSeen = 0;

beforeAll(async () => {
  http('limitsEcho', (req, res) => {
    bodiesSeen++;
    res.json({ bytes: JSON.stringify(req.body ?? null).length });
  });
  const app = getTestServer('limitsEcho').listeners('request')[0] as Parameters<typeof withBodyLimits>[0];
  server = gracefulServer(withBodyLimits(app, MAX)).server;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function post(headers: Record<string, string | number>, chunks: Buffer[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, method: 'POST', path: '/', headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    // The server may close the connection before everything is written: that is the point.
    req.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' || e.code === 'EPIPE' ? resolve({ status: -1, body: '' }) : reject(e)));
    for (const c of chunks) req.write(c);
    req.end();
  });
}

const json = (n: number) => Buffer.from(JSON.stringify({ pad: 'x'.repeat(n) }));

describe('request bodies are bounded before the framework parses them', () => {
  it('serves a body under the limit', async () => {
    const r = await post({ 'content-type': 'application/json', 'content-length': json(1000).length }, [json(1000)]);
    expect(r.status).toBe(200);
  });

  it('refuses a gzip body that would inflate to 200 MB with 415, unread', async () => {
    const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20));
    const before = bodiesSeen;
    const rss = process.memoryUsage().rss;
    const r = await post({ 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length }, [bomb]);
    expect(r.status === 415 || r.status === -1).toBe(true);
    expect(bodiesSeen).toBe(before);
    expect(process.memoryUsage().rss - rss).toBeLessThan(100 * 1024 * 1024);
  });

  it('refuses a declared length over the limit with 413', async () => {
    const big = json(MAX * 2);
    const r = await post({ 'content-type': 'application/json', 'content-length': big.length }, [big]);
    expect([413, -1]).toContain(r.status);
  });

  it('cuts off a chunked body (no length given) once it passes the limit', async () => {
    const before = bodiesSeen;
    const chunks = Array.from({ length: 40 }, () => Buffer.alloc(8 * 1024, 0x61));
    const r = await post({ 'content-type': 'text/plain', 'transfer-encoding': 'chunked' }, chunks);
    expect([413, -1]).toContain(r.status);
    expect(bodiesSeen).toBe(before);
  });
});
