// The watch loop's recovery rules, driven by a scripted stand-in for the API server on
// 127.0.0.1 (a real cluster cannot be made to answer 410 on cue: its watch cache serves old
// versions long after etcd compacts them). The happy path runs against the real control
// plane in test/integration/bridge.
import { KubeConfig } from '@kubernetes/client-node';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject, Verb } from '../../cloudevents/index.js';
import { parseKinds } from './kinds.js';
import { startKindWatch, type KindWatch } from './watch.js';

type Step = { events: { type: string; rv: string; name?: string; code?: number }[]; end: 'close' | 'hang' } | { silent: true } | { status: number };

interface Fake {
  kubeConfig: KubeConfig;
  requests: string[];
  server: Server;
}

async function fakeApiServer(listRvs: string[], watches: Step[]): Promise<Fake> {
  const requests: string[] = [];
  const open: ServerResponse[] = [];
  let lists = 0;
  let watchCalls = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/api/v1')
      return json(200, { kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'pods', kind: 'Pod', namespaced: true, verbs: ['list', 'watch'] }] });
    if (url.searchParams.get('watch') === 'true') {
      requests.push(`watch ${url.searchParams.get('resourceVersion')}`);
      const step = watches[watchCalls++] ?? { events: [], end: 'hang' };
      if ('status' in step) return json(step.status, { kind: 'Status', code: step.status, reason: 'Expired' });
      if ('silent' in step) return void open.push(res); // not even headers, like a black-holed connection
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders(); // the API server answers at once and streams events later
      for (const e of step.events) {
        const object =
          e.type === 'ERROR'
            ? { kind: 'Status', apiVersion: 'v1', code: e.code, reason: 'Expired', message: 'too old resource version' }
            : { apiVersion: 'v1', kind: 'Pod', metadata: { name: e.name ?? 'p', namespace: 'ns', uid: 'u', resourceVersion: e.rv } };
        res.write(`${JSON.stringify({ type: e.type, object })}\n`);
      }
      if (step.end === 'close') res.end();
      else open.push(res);
      return;
    }
    requests.push('list');
    const rv = listRvs[Math.min(lists++, listRvs.length - 1)];
    return json(200, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: rv }, items: [] });
  });
  server.on('close', () => open.forEach((r) => r.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  return { kubeConfig, requests, server };
}

let running: { watch?: KindWatch; fake?: Fake } = {};
afterEach(async () => {
  await running.watch?.stop();
  running.fake?.server.closeAllConnections();
  await new Promise((resolve) => running.fake?.server.close(resolve) ?? resolve(undefined));
  running = {};
});

async function start(listRvs: string[], watches: Step[]) {
  const fake = await fakeApiServer(listRvs, watches);
  const seen: { verb: Verb; object: KubeObject }[] = [];
  const gaps: { from: string; to: string }[] = [];
  const warnings: string[] = [];
  const quiet = () => undefined;
  const watch = await startKindWatch({
    kubeConfig: fake.kubeConfig,
    kind: parseKinds('Pod')[0]!,
    namespace: 'ns',
    onEvent: (verb, object) => void seen.push({ verb, object }),
    onGap: (g) => void gaps.push(g),
    log: { debug: quiet, info: quiet, error: quiet, warn: (_: object, m: string) => void warnings.push(m) },
    backoff: { minMs: 10, maxMs: 50 },
  });
  running = { watch, fake };
  return { fake, seen, gaps, warnings };
}

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the kind watch', () => {
  it('maps ADDED/MODIFIED/DELETED to add/update/delete and lets bookmarks only move the version on', async () => {
    const { fake, seen } = await start(
      ['10'],
      [
        {
          events: [
            { type: 'ADDED', rv: '11' },
            { type: 'MODIFIED', rv: '12' },
            { type: 'BOOKMARK', rv: '15' },
            { type: 'DELETED', rv: '16' },
          ],
          end: 'close',
        },
      ],
    );
    await until('the resumed watch', () => fake.requests.length >= 3);
    expect(seen.map((e) => `${e.verb}@${e.object.metadata.resourceVersion}`)).toEqual(['add@11', 'update@12', 'delete@16']);
    expect(fake.requests.slice(0, 3)).toEqual(['list', 'watch 10', 'watch 16']);
  });

  it('resumes a watch the server closed from the last version seen, without re-listing or a gap', async () => {
    const { fake, gaps } = await start(
      ['10'],
      [
        { events: [{ type: 'ADDED', rv: '11' }], end: 'close' },
        { events: [{ type: 'BOOKMARK', rv: '14' }], end: 'close' },
      ],
    );
    await until('the third watch', () => fake.requests.length >= 4);
    expect(fake.requests.slice(0, 4)).toEqual(['list', 'watch 10', 'watch 11', 'watch 14']);
    expect(gaps).toEqual([]);
  });

  it('re-lists after a 410 Gone in the stream and reports the gap with both versions', async () => {
    const { fake, gaps, warnings, seen } = await start(
      ['10', '30'],
      [
        {
          events: [
            { type: 'ADDED', rv: '11' },
            { type: 'ERROR', rv: '', code: 410 },
          ],
          end: 'close',
        },
        { events: [{ type: 'ADDED', rv: '31', name: 'after' }], end: 'hang' },
      ],
    );
    await until('the event after the gap', () => seen.length >= 2);
    expect(fake.requests).toEqual(['list', 'watch 10', 'list', 'watch 30']);
    expect(gaps).toEqual([{ from: '11', to: '30' }]);
    expect(warnings.filter((w) => w.startsWith('watch gap'))).toHaveLength(1);
    expect(seen.map((e) => e.object.metadata.name)).toEqual(['p', 'after']);
  });

  it('re-lists when the watch request itself is answered 410', async () => {
    const { fake, gaps } = await start(['10', '40'], [{ status: 410 }]);
    await until('the watch after the re-list', () => fake.requests.length >= 4);
    expect(fake.requests.slice(0, 4)).toEqual(['list', 'watch 10', 'list', 'watch 40']);
    expect(gaps).toEqual([{ from: '10', to: '40' }]);
  });

  it('retries a failing watch with backoff from the same version, without a gap', async () => {
    const { fake, gaps, warnings } = await start(['10'], [{ status: 500 }, { status: 503 }, { events: [], end: 'hang' }]);
    await until('the third watch', () => fake.requests.length >= 4);
    expect(fake.requests.slice(0, 4)).toEqual(['list', 'watch 10', 'watch 10', 'watch 10']);
    expect(gaps).toEqual([]);
    expect(warnings.filter((w) => w.startsWith('watch failed'))).toHaveLength(2);
  });

  it.each([
    { step: { events: [], end: 'hang' } as Step, sentence: 'while a watch is open' },
    { step: { silent: true } as Step, sentence: 'while a watch request has had no answer at all' },
  ])('stops promptly $sentence', async ({ step }) => {
    const { fake } = await start(['10'], [step]);
    await until('the watch', () => fake.requests.length >= 2);
    const t = Date.now();
    await running.watch?.stop();
    running.watch = undefined;
    expect(Date.now() - t).toBeLessThan(1_000);
  });
});
