// Issue 23, item 4: the first event after a cold start does not pay for the sender check's
// issuer discovery and key fetch, nor for loading the Kubernetes client. Both entries (the
// image's server and functions-framework's own main) start them in the background once they
// listen; an event arriving meanwhile waits for that attempt; a failure there is logged once
// and is not fatal, and the first event after the issuer comes back is accepted.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS_SOURCE, startFunctionProcess, startServerProcess, type FunctionProcess, type ServerProcess } from '../../harness/function-process.js';
import { sharedCluster, waitFor } from '../../harness/index.js';
import { startIssuer, type LocalIssuer } from '../../fixtures/oidc-issuer.js';
import { knativeRequest } from '../functions/setup.js';
import { startRuntime } from '../../../shared/runtime/runtime.js';
import { senderAuthOf } from '../../../shared/serve/http/senders.js';
import { warmUp } from '../../../shared/hosts/server/warm.js';

const AUDIENCE = 'serving.knative.dev/service/kube-tidy/pod-terminated';
const SENDER = 'system:serviceaccount:kube-tidy:oidc-apiserversource';
const POLICY = {
  apiVersion: 'descheduler/v1alpha2',
  kind: 'DeschedulerPolicy',
  profiles: [{ name: 'p', pluginConfig: [{ name: 'RemoveFailedPods', args: {} }], plugins: { deschedule: { enabled: ['RemoveFailedPods'] } } }],
};

/**
 * The issuer as the process sees it, recording each request: the fixture's keys and signer
 * behind a discovery document of its own (the fixture counts only key fetches), so a test can
 * tell when discovery happened. `down` resets every connection; `delayMs` holds discovery back.
 */
interface RecordingIssuer {
  url: string;
  hits: { path: string; at: number }[];
  down: boolean;
  delayMs: number;
  token(): Promise<string>;
  close(): Promise<void>;
}

async function recordingIssuer(keys: LocalIssuer): Promise<RecordingIssuer> {
  const server = createServer((req, res) => {
    rec.hits.push({ path: req.url ?? '', at: Date.now() });
    if (rec.down) return req.socket.destroy();
    const answer = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/.well-known/openid-configuration') return void setTimeout(() => answer({ issuer: rec.url, jwks_uri: `${rec.url}/jwks` }), rec.delayMs);
    if (req.url === '/jwks') return answer({ keys: keys.published.map((k) => k.jwk) });
    res.writeHead(404).end();
  });
  const rec: RecordingIssuer = {
    url: '',
    hits: [],
    down: false,
    delayMs: 0,
    token: () => keys.sign({ iss: rec.url, aud: AUDIENCE, sub: SENDER, exp: Math.floor(Date.now() / 1000) + 300 }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rec.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return rec;
}

let keys: LocalIssuer;
let issuer: RecordingIssuer;
let policyFile: string;
const started: FunctionProcess[] = [];

beforeAll(async () => {
  keys = await startIssuer();
  policyFile = join(mkdtempSync(join(tmpdir(), 'kube-tidy-warm-')), 'policy.json');
  writeFileSync(policyFile, JSON.stringify(POLICY));
});
afterAll(() => keys.close());
afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.stop()));
  await issuer?.close();
});

// OIDC with discovery (no SENDER_AUTH_JWKS_URL): the keys' address comes from the issuer.
const env = () => ({
  POLICY_FILE: policyFile,
  KUBECONFIG: sharedCluster().kubeconfigPath,
  SENDER_AUTH: 'oidc',
  SENDER_AUTH_ISSUER: issuer.url,
  SENDER_AUTH_AUDIENCE: AUDIENCE,
  SENDER_AUTH_SUBJECTS: SENDER,
});
const paths = () => issuer.hits.map((h) => h.path);
const logged = (p: ServerProcess, msg: string) => p.lines().filter((l) => l.includes(`"msg":"${msg}`));

/** A young Running pod: nothing to do, and nothing asked of the cluster. */
const pod: V1Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', uid: 'u-warm', creationTimestamp: new Date() },
  status: { phase: 'Running' },
};

async function postEvent(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const m = knativeRequest('binary', 'update', pod);
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...m.headers, authorization: `Bearer ${await issuer.token()}` },
    body: m.body,
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const entries = {
  'the image’s server (server.ts)': (e: Record<string, string>) => startServerProcess('podTerminated', e),
  'functions-framework’s main (framework-entry.ts)': (e: Record<string, string>) => startFunctionProcess('podTerminated', FUNCTIONS_SOURCE, e),
};

describe.each(Object.entries(entries))('warm-up at start, through %s', (_, start) => {
  it('discovers the issuer and fetches its keys before any event is sent; the first event then fetches nothing', async () => {
    issuer = await recordingIssuer(keys);
    const p = await start(env());
    started.push(p);
    await waitFor('the issuer’s discovery document and keys, fetched with no event sent', async () => paths().includes('/jwks'), { timeoutMs: 15_000 });
    expect(paths()).toEqual(['/.well-known/openid-configuration', '/jwks']);
    const first = await postEvent(p.url);
    expect(first).toMatchObject({ status: 200, body: { outcome: 'nothing-to-do' } });
    expect(paths()).toHaveLength(2);
  });
});

describe('warm-up at start, through the image’s server', () => {
  it('an event arriving while the warm-up is under way waits for it instead of fetching again', async () => {
    issuer = await recordingIssuer(keys);
    issuer.delayMs = 1_000;
    const p = await startServerProcess('podTerminated', env());
    started.push(p);
    const first = await postEvent(p.url);
    expect(first).toMatchObject({ status: 200, body: { outcome: 'nothing-to-do' } });
    // One discovery and one key fetch: the warm-up's, which the event waited for.
    expect(paths()).toEqual(['/.well-known/openid-configuration', '/jwks']);
    expect(logged(p, 'warmed up')).toHaveLength(1);
  });

  it('an issuer down at start is not fatal: one warning, and the first event after it comes back is accepted', async () => {
    issuer = await recordingIssuer(keys);
    issuer.down = true;
    const p = await startServerProcess('podTerminated', env());
    started.push(p);
    await waitFor('the warning that the warm-up failed', async () => logged(p, 'warm-up at start failed').length > 0, { timeoutMs: 15_000 });
    expect(logged(p, 'warm-up at start failed')[0]).toMatch(/sender keys: .*issuer discovery failed/);
    issuer.down = false;
    // At once: a failed warm-up does not hold the first request back for the retry wait.
    const first = await postEvent(p.url);
    expect(first).toMatchObject({ status: 200, body: { outcome: 'nothing-to-do' } });
    expect(await Promise.race([p.exited.then(() => 'exited'), new Promise((r) => setTimeout(() => r('running'), 100))])).toBe('running');
    expect(logged(p, 'warm-up at start failed')).toHaveLength(1);
  });
});

describe('a warm-up that failed is not kept', () => {
  it('a client that could not load at start (a broken kubeconfig, since mended) loads on the next need', async () => {
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'kube-tidy-warm-kc-')), 'kubeconfig');
    writeFileSync(kubeconfig, 'clusters: [');
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
    const rt = await startRuntime({ POLICY_FILE: policyFile, KUBECONFIG: kubeconfig }, { log }, { lazyKube: true });
    await warmUp(rt, senderAuthOf(rt), { lazyKube: true })();
    expect(lines.filter((l) => l.includes('warm-up at start failed'))).toEqual([expect.stringMatching(/cluster client: /)]);
    writeFileSync(kubeconfig, readFileSync(sharedCluster().kubeconfigPath));
    await rt.kubeReady();
    expect(rt.kubeConfig.getCurrentCluster()?.server).toBe(sharedCluster().kubeConfig().getCurrentCluster()?.server);
  });
});
