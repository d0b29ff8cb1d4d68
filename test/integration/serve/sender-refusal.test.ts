// Sender authentication in front of every target, as the production server serves it
// (shared/serve/http/front.ts before its node:http adapter, shared/serve/http/node-http.ts): with
// SENDER_AUTH on, a request without a valid token is answered 401 before its body is read (a
// body that is not even JSON gets 401, not 400), and a valid token lets the request through to
// decoding. Without the front, each HTTP adapter checks the sender itself.
import type { RequestListener } from 'node:http';
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { front } from '../../../shared/serve/http/front.js';
import { httpFunction } from '../../../shared/serve/http/functions-framework.js';
import { nodeHttpTarget } from '../../../shared/serve/http/node-http.js';
import { senderAuthOf } from '../../../shared/serve/http/senders.js';
import { TARGETS, type TargetName } from '../../../functions/index.js';
import type { TargetSpec } from '../../../shared/serve/target.js';
import { startIssuer, type LocalIssuer } from '../../fixtures/oidc-issuer.js';
import { runtimeFor } from '../functions/setup.js';

const AUDIENCE = 'serving.knative.dev/service/kube-tidy/test';
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

const envFor = () => ({
  SENDER_AUTH: 'oidc',
  SENDER_AUTH_ISSUER: issuer.url,
  SENDER_AUTH_JWKS_URL: issuer.jwksUrl,
  SENDER_AUTH_AUDIENCE: AUDIENCE,
  SENDER_AUTH_SUBJECTS: 'system:serviceaccount:kube-tidy:trigger',
});
const token = (claims: Record<string, unknown> = {}) =>
  issuer.sign({ iss: issuer.url, aud: AUDIENCE, sub: 'system:serviceaccount:kube-tidy:trigger', exp: Math.floor(Date.now() / 1000) + 300, ...claims });

describe.each(Object.keys(TARGETS) as TargetName[])('%s behind sender authentication', (name) => {
  let agent: ReturnType<typeof supertest>;
  beforeAll(async () => {
    const spec = (await TARGETS[name]()) as TargetSpec<unknown>;
    const rt = await runtimeFor(POLICY, envFor());
    const auth = senderAuthOf(rt);
    agent = supertest(
      front(nodeHttpTarget(spec, await spec.setup(rt), rt, { auth, maxBytes: 1024 * 1024 }), {
        auth,
        maxBytes: 1024 * 1024,
        target: name,
        metrics: rt.metrics,
      }),
    );
  });

  it('answers 401 to a request without a token, before reading its (broken) body', async () => {
    const res = await agent.post('/').set('content-type', 'application/json').send('{not json');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('answers 401 to a token for another audience or from another sender', async () => {
    for (const t of [await token({ aud: 'someone-else' }), await token({ sub: 'system:serviceaccount:default:intruder' })]) {
      const res = await agent.post('/').set('authorization', `Bearer ${t}`).set('content-type', 'application/json').send('{not json');
      expect(res.status).toBe(401);
    }
  });

  it('lets a valid token through to decoding (the broken body is then a 400)', async () => {
    const res = await agent
      .post('/')
      .set('authorization', `Bearer ${await token()}`)
      .set('content-type', 'application/json')
      .send('{not json');
    expect(res.status).toBe(400);
    // The parser saw the body the sender sent (not an empty one): nothing was lost while the token was checked.
    expect(res.text).toMatch(/JSON|Unexpected token|position/i);
  });
});

const unfronted: Record<string, (spec: TargetSpec<unknown>, rt: Awaited<ReturnType<typeof runtimeFor>>) => Promise<RequestListener>> = {
  'functions-framework’s own main (functions-framework.ts)': async (spec, rt) => {
    http('auth-no-front', httpFunction(spec, rt));
    return getTestServer('auth-no-front').listeners('request')[0] as RequestListener;
  },
  'the node:http adapter alone (node-http.ts)': async (spec, rt) =>
    nodeHttpTarget(spec, await spec.setup(rt), rt, { auth: senderAuthOf(rt), maxBytes: 1024 * 1024 }),
};

describe.each(Object.entries(unfronted))('without the front: %s', (_, adapter) => {
  it('the wrapper still refuses a request without a token, before decoding it', async () => {
    const spec = (await TARGETS.podTerminated()) as TargetSpec<unknown>;
    const rt = await runtimeFor(POLICY, envFor());
    const res = await supertest(await adapter(spec, rt))
      .post('/')
      .set('content-type', 'application/json')
      .send({ apiVersion: 'v1', kind: 'Pod' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });
});
