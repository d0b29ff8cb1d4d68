// Issue 23 ("refusals leave no trace"): every request the production server's front
// (shared/serve/http/front.ts) refuses before the wrapper sees it is counted in
// kube_tidy_requests_total by reason and logged, sampled, with the sender's subject when the
// verifier knew it and never the token; its 503s say when to retry, as the wrapper's do. The
// front stands before the production server's own adapter (shared/serve/http/node-http.ts), as in
// server.ts.
import type { RequestListener } from 'node:http';
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TARGETS } from '../../../functions/index.js';
import { createLogger } from '../../../shared/log.js';
import { metricsExposition } from '../../../shared/metrics/exposition.js';
import type { MetricsRecorder } from '../../../shared/metrics/recorder.js';
import { front } from '../../../shared/serve/http/front.js';
import { httpFunction } from '../../../shared/serve/http/functions-framework.js';
import { nodeHttpTarget } from '../../../shared/serve/http/node-http.js';
import { LOG_PER_WINDOW } from '../../../shared/serve/http/refusals.js';
import { senderAuthOf } from '../../../shared/serve/http/senders.js';
import type { TargetSpec } from '../../../shared/serve/target.js';
import { startIssuer, type LocalIssuer } from '../../fixtures/oidc-issuer.js';
import { runtimeFor } from '../functions/setup.js';

const AUDIENCE = 'serving.knative.dev/service/kube-tidy/test';
const ALLOWED = 'system:serviceaccount:kube-tidy:trigger';
const INTRUDER = 'system:serviceaccount:default:intruder';
const POLICY = {
  apiVersion: 'descheduler/v1alpha2',
  kind: 'DeschedulerPolicy',
  profiles: [{ name: 'p', pluginConfig: [{ name: 'RemoveFailedPods', args: {} }], plugins: { deschedule: { enabled: ['RemoveFailedPods'] } } }],
};
let issuer: LocalIssuer;

beforeAll(async () => {
  issuer = await startIssuer();
});
afterAll(() => issuer.close());

const token = (claims: Record<string, unknown> = {}) =>
  issuer.sign({ iss: issuer.url, aud: AUDIENCE, sub: ALLOWED, exp: Math.floor(Date.now() / 1000) + 300, ...claims });

/** The front before podTerminated's node:http adapter (as server.ts serves it), its log lines kept in `lines`, its runtime's recorder `metrics`. */
async function served(env: Record<string, string>, maxBytes = 1024 * 1024) {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const log = createLogger({ env: {}, destination: { write: (s: string) => (raw.push(s), lines.push(JSON.parse(s) as Record<string, unknown>)) } });
  const spec = (await TARGETS.podTerminated()) as TargetSpec<unknown>;
  const rt = await runtimeFor(POLICY, env);
  const auth = senderAuthOf(rt);
  const agent = supertest(
    front(nodeHttpTarget(spec, await spec.setup(rt), rt, { auth, maxBytes }), { auth, maxBytes, target: 'podTerminated', log, metrics: rt.metrics }),
  );
  return { agent, lines, raw, metrics: rt.metrics };
}

const oidc = (jwksUrl = issuer.jwksUrl) => ({
  SENDER_AUTH: 'oidc',
  SENDER_AUTH_ISSUER: issuer.url,
  SENDER_AUTH_JWKS_URL: jwksUrl,
  SENDER_AUTH_AUDIENCE: AUDIENCE,
  SENDER_AUTH_SUBJECTS: ALLOWED,
});

/** kube_tidy_requests_total for podTerminated as `metrics` (the process's recorder) exposes it. */
async function count(metrics: MetricsRecorder, code: string, outcome: string): Promise<number> {
  const body = (await metricsExposition(metrics)).body;
  const line = body
    .split('\n')
    .find(
      (l) =>
        l.startsWith('kube_tidy_requests_total{') && l.includes(`target="podTerminated"`) && l.includes(`code="${code}"`) && l.includes(`outcome="${outcome}"`),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
}
const refusedLines = (lines: Record<string, unknown>[]) => lines.filter((l) => l.msg === 'refused');

describe('the front counts and logs every refusal', () => {
  it('a token from another sender: 401 as before, counted, logged once with its subject, never the token', async () => {
    const { agent, lines, raw, metrics } = await served(oidc());
    const t = await token({ sub: INTRUDER });
    const res = await agent.post('/').set('authorization', `Bearer ${t}`).set('content-type', 'application/json').send('{}');
    expect(res.status).toBe(401);
    expect(await count(metrics, '401', 'unauthenticated')).toBe(1);
    expect(refusedLines(lines)).toEqual([expect.objectContaining({ status: 401, reason: 'unauthenticated', subject: INTRUDER, target: 'podTerminated' })]);
    expect(raw.join('')).not.toContain(t.split('.')[2]!);
    expect(raw.join('')).not.toContain(t.split('.')[1]!);
  });

  it('no token: 401 as before, counted, logged once (no subject)', async () => {
    const { agent, lines, metrics } = await served(oidc());
    const res = await agent.post('/').set('content-type', 'application/json').send('{}');
    expect(res.status).toBe(401);
    expect(await count(metrics, '401', 'unauthenticated')).toBe(1);
    const refused = refusedLines(lines);
    expect(refused).toHaveLength(1);
    expect(refused[0]).not.toHaveProperty('subject');
  });

  it('a body over the limit: 413 as before, counted, logged once', async () => {
    const { agent, lines, metrics } = await served({ SENDER_AUTH: 'none' }, 1024);
    const res = await agent
      .post('/')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ pad: 'x'.repeat(4096) }));
    expect(res.status).toBe(413);
    expect(await count(metrics, '413', 'too-large')).toBe(1);
    expect(refusedLines(lines)).toEqual([expect.objectContaining({ status: 413, reason: 'too-large' })]);
  });

  it("the issuer's keys unreachable: 503 with Retry-After, counted, logged", async () => {
    const { agent, lines, metrics } = await served(oidc('http://127.0.0.1:1/jwks'));
    const res = await agent
      .post('/')
      .set('authorization', `Bearer ${await token()}`)
      .set('content-type', 'application/json')
      .send('{}');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('10');
    expect(await count(metrics, '503', 'sender-check-unavailable')).toBe(1);
    expect(refusedLines(lines)).toEqual([expect.objectContaining({ status: 503, reason: 'sender-check-unavailable' })]);
  });

  it('a flood of 1,000 bad requests is counted in full and writes a bounded number of lines', async () => {
    const { agent, lines, metrics } = await served(oidc());
    for (let i = 0; i < 1000; i += 50) {
      const batch = Array.from({ length: 50 }, () => agent.post('/').set('content-type', 'application/json').send('{}'));
      for (const res of await Promise.all(batch)) expect(res.status).toBe(401);
    }
    expect(await count(metrics, '401', 'unauthenticated')).toBe(1000);
    expect(lines.length).toBeLessThanOrEqual(LOG_PER_WINDOW + 1);
    expect(refusedLines(lines).length).toBe(LOG_PER_WINDOW);
  }, 60_000);
});

// Both HTTP adapters hand their refusals to the one resolver, which counts them.
const adapters: Record<string, (spec: TargetSpec<unknown>, rt: Awaited<ReturnType<typeof runtimeFor>>) => Promise<RequestListener>> = {
  'the production server’s adapter (node-http.ts)': async (spec, rt) =>
    nodeHttpTarget(spec, await spec.setup(rt), rt, { auth: senderAuthOf(rt), maxBytes: rt.config.MAX_BODY_BYTES }),
  'functions-framework’s (functions-framework.ts)': async (spec, rt) => {
    http('vis-wrapper', httpFunction(spec, rt));
    return getTestServer('vis-wrapper').listeners('request')[0] as RequestListener;
  },
};

describe.each(Object.entries(adapters))("the wrapper's own refusals are counted by the same reasons, through %s", (_, adapter) => {
  it('a GET (405) and an event of a kind the target does not take (422), each under its reason', async () => {
    const spec = (await TARGETS.podTerminated()) as TargetSpec<unknown>;
    const rt = await runtimeFor(POLICY, { SENDER_AUTH: 'none' });
    const metrics = rt.metrics;
    const agent = supertest(await adapter(spec, rt));
    expect((await agent.get('/')).status).toBe(405);
    const event = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'x', uid: 'u' } };
    expect((await agent.post('/').set('content-type', 'application/json').send(event)).status).toBe(422);
    expect(await count(metrics, '405', 'method')).toBe(1);
    expect(await count(metrics, '422', 'not-accepted')).toBe(1);
  });
});
