// The production bundle, as the image runs it: the entry and the bundle alone (no node_modules
// anywhere above them), on Node 22, FUNCTION_TARGET picking the function. It must answer real
// Knative events and drain on SIGTERM, with and without its warmed code caches, and never run
// code from a cache that is not its own. The kubeconfig points nowhere: a Running pod's event
// needs no API request, and a failed pod's delete fails fast.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { bundle, warmCodeCache } from '../../../infra/bundle/build.js';
import { nodeBinary } from '../../../infra/bundle/node-binary.js';
import { node22 } from '../../../infra/bundle/node22.js';
import { startServer } from '../../../infra/bundle/serving.js';
import { TARGETS } from '../../../shared/hosts/server/register.js';
import { httpMessage, toApiServerSourceEvent } from '../../../shared/cloudevents/index.js';

// Real processes start slowly when the whole suite runs in parallel on two cores.
vi.setConfig({ testTimeout: 30_000 });

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-bundle-'));
const run = join(dir, 'run');
const caches = join(run, 'code-cache');
let built = { bytes: 0, clientBytes: 0, ms: 0 };

beforeAll(async () => {
  const out = join(dir, 'build', 'server.cjs');
  built = await bundle(out);
  mkdirSync(run);
  for (const f of ['server.cjs', 'app.cjs', 'client.cjs', 'warm.cjs']) copyFileSync(join(dir, 'build', f), join(run, f));
  writeFileSync(
    join(dir, 'policy.yaml'),
    'apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n  - name: p\n    pluginConfig: [{name: RemoveFailedPods, args: {}}]\n    plugins: {deschedule: {enabled: [RemoveFailedPods]}}\n',
  );
  writeFileSync(
    join(dir, 'kubeconfig'),
    'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n',
  );
}, 120_000);

function start(target: string, env: Record<string, string> = {}) {
  return startServer(
    node22(),
    [join(run, 'server.cjs')],
    { FUNCTION_TARGET: target, PORT: '0', POLICY_FILE: join(dir, 'policy.yaml'), KUBECONFIG: join(dir, 'kubeconfig'), ...env },
    run,
  );
}

/** Starts podTerminated, sends a pod's update, stops it; what it logged and answered. */
async function serveOneEvent(phase: 'Running' | 'Failed' = 'Running', env: Record<string, string> = {}) {
  const p = start('podTerminated', env);
  const { port, codeCache } = await p.serving;
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web',
      namespace: 'ml',
      uid: 'u-1',
      creationTimestamp: '2026-01-01T00:00:00Z',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs-1', controller: true }],
    },
    spec: { containers: [{ name: 'c', image: 'x' }] },
    status: { phase, startTime: '2026-01-01T00:00:00Z' },
  };
  const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', ...httpMessage(toApiServerSourceEvent('update', pod, 'https://api.example')) });
  const body = (await res.json()) as unknown;
  p.child.kill('SIGTERM');
  return { status: res.status, body, codeCache, exit: await p.exited, stderr: p.stderr() };
}

const cacheFiles = () => (existsSync(caches) ? readdirSync(caches).sort() : []);

describe('the bundle on Node 22', () => {
  it('is two self-contained CommonJS files of a few MB, the Kubernetes client in the second', () => {
    expect(built.bytes).toBeGreaterThan(100_000);
    expect(built.bytes + built.clientBytes).toBeLessThan(8_000_000);
    const app = readFileSync(join(run, 'app.cjs'), 'utf8');
    expect(app).not.toMatch(/^import |\bimport\.meta\b/m);
    // Every use of the client goes through the entry's require, which reads client.cjs.
    expect(app).toContain('require("@kubernetes/client-node")');
    expect(app).not.toContain('class KubeConfig');
  });

  it('serves podTerminated without a code cache: a Running pod is nothing to do; SIGTERM exits 0', async () => {
    rmSync(caches, { recursive: true, force: true });
    const r = await serveOneEvent();
    // The client is not even read for this event.
    expect(r).toMatchObject({ status: 200, body: { outcome: 'nothing-to-do', pod: 'ml/web' }, codeCache: { app: 'none' }, exit: 0, stderr: '' });
    // Only warm.cjs asks for a cache to be written.
    expect(cacheFiles()).toEqual([]);
  });

  it('loads the Kubernetes client from client.cjs when a long-failed pod must be deleted', async () => {
    const r = await serveOneEvent('Failed');
    // The policy selects it; the DELETE goes to the kubeconfig's server, which is not there.
    expect(r.status).toBe(503);
    // The stored pod is read before anything is written: that read goes to the missing server.
    expect(JSON.stringify(r.body)).toMatch(/get pod ml\/web.*127\.0\.0\.1:9/);
    expect(r.exit).toBe(0);
  });

  it('pushes its metrics over OTLP before it answers, as a serverless instance must (the exporter imports node:http)', async () => {
    const received: string[] = [];
    const collector = createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    try {
      const { port } = collector.address() as AddressInfo;
      const r = await serveOneEvent('Running', { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `http://127.0.0.1:${port}/v1/metrics` });
      expect(r).toMatchObject({ status: 200, exit: 0 });
      // The push is awaited before the answer (metrics/recorder.ts afterRequest).
      expect(received).toContain('POST /v1/metrics');
    } finally {
      collector.close();
    }
  });

  it('refuses a FUNCTION_TARGET that is not registered, naming the ones that are', async () => {
    const p = start('nope');
    await expect(p.serving).rejects.toThrow(/"nope" is not one of .*podTerminated/);
    expect(await p.exited).toBe(2);
  });

  it('warm.cjs writes a code cache per target and file, named for this build, and V8 takes them', async () => {
    rmSync(caches, { recursive: true, force: true });
    warmCodeCache(join(run, 'server.cjs'), node22());
    const build = readFileSync(join(run, 'server.cjs'), 'utf8').match(/const BUILD = '([0-9a-f]{16})'/)?.[1];
    expect(cacheFiles()).toEqual(
      Object.keys(TARGETS)
        .flatMap((t) => [`${t}-app-${build}.bin`, `${t}-client-${build}.bin`])
        .sort(),
    );
    const r = await serveOneEvent();
    expect(r).toMatchObject({ status: 200, body: { outcome: 'nothing-to-do', pod: 'ml/web' }, codeCache: { app: 'accepted' }, exit: 0, stderr: '' });
    // A target that loads the client at start takes both caches.
    const sweep = start('sweep');
    expect((await sweep.serving).codeCache).toEqual({ app: 'accepted', client: 'accepted' });
    sweep.child.kill('SIGTERM');
    expect(await sweep.exited).toBe(0);
  });

  // V8 in release builds does not check a cache's checksum: a damaged one would crash the process.
  it('a damaged cache is rejected and the code compiled as usual: same answer', async () => {
    const file = join(
      caches,
      cacheFiles().find((f) => f.startsWith('podTerminated-app-'))!,
    );
    const good = readFileSync(file);
    try {
      const bad = Buffer.from(good);
      bad.fill(7, 64, 4096);
      writeFileSync(file, bad);
      const r = await serveOneEvent();
      expect(r).toMatchObject({ status: 200, body: { outcome: 'nothing-to-do' }, codeCache: { app: 'rejected' }, exit: 0 });
    } finally {
      writeFileSync(file, good);
    }
  });

  it('a cache written by another Node (24) is rejected by V8 and the code compiled as usual', async () => {
    rmSync(caches, { recursive: true, force: true });
    warmCodeCache(join(run, 'server.cjs'), nodeBinary(24));
    expect(cacheFiles()).toHaveLength(2 * Object.keys(TARGETS).length);
    const r = await serveOneEvent();
    expect(r).toMatchObject({ status: 200, body: { outcome: 'nothing-to-do' }, codeCache: { app: 'rejected' }, exit: 0, stderr: '' });
  });

  it('a start that fails writes no cache, even when asked to', async () => {
    rmSync(caches, { recursive: true, force: true });
    const p = start('podTerminated', { KUBE_TIDY_WRITE_CODE_CACHE: '1', POLICY_FILE: join(dir, 'missing.yaml') });
    await expect(p.serving).rejects.toThrow(/cannot start/);
    expect(await p.exited).toBe(2);
    expect(cacheFiles()).toEqual([]);
  });
});

describe('the standalone entry (the chart’s standalone Deployment)', () => {
  it('is what the Deployment runs and the image copies, and starts alone on Node 22 (no node_modules): a missing setting is exit 2 naming it', async () => {
    const deployment = readFileSync(join(import.meta.dirname, '../../../infra/helm/kube-tidy/templates/standalone/deployment.yaml'), 'utf8');
    expect(deployment).toContain('command: ["node", "standalone.cjs"]');
    expect(readFileSync(join(import.meta.dirname, '../../../infra/docker/Dockerfile'), 'utf8')).toMatch(
      /^COPY --from=build .*\/src\/dist\/bundle\/standalone\.cjs .*\.\/$/m,
    );
    const alone = mkdtempSync(join(tmpdir(), 'kube-tidy-standalone-'));
    copyFileSync(join(dir, 'build', 'standalone.cjs'), join(alone, 'standalone.cjs'));
    const p = startServer(node22(), [join(alone, 'standalone.cjs')], { PORT: '0' }, alone);
    p.serving.catch(() => undefined);
    expect(await p.exited).toBe(2);
    expect(p.stderr()).toMatch(/cannot start: invalid configuration:\n(.*\n)* {2}POD_NAME: not set/);
    rmSync(alone, { recursive: true, force: true });
  });
});
