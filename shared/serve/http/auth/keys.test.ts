import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeKey, startIssuer, type LocalIssuer } from '../../../../test/fixtures/oidc-issuer.js';
import { senderAuthFromEnv, type SenderAuth } from '../auth.js';

// The issuer's keys over time: rotation is picked up, lookups for unknown kids are
// rate-limited, and an unreachable key endpoint means "retry" (503), never "refused" (401)
// and never a crash; keys already held keep verifying while it is down.

const AUD = 'serving.knative.dev/service/kube-tidy/sweep';
const now = () => Math.floor(Date.now() / 1000);

let issuer: LocalIssuer;
let clock: number;
let stale: Error[];
const make = (): SenderAuth =>
  senderAuthFromEnv(
    { SENDER_AUTH: 'oidc', SENDER_AUTH_ISSUER: issuer.url, SENDER_AUTH_JWKS_URL: issuer.jwksUrl, SENDER_AUTH_AUDIENCE: AUD },
    { keys: { now: () => clock, cooldownMs: 30_000, retryMs: 5_000, maxAgeMs: 600_000, onStale: (e) => stale.push(e) } },
  );
const token = (kid?: string) =>
  issuer.sign(
    { iss: issuer.url, aud: AUD, sub: 'system:serviceaccount:kube-tidy:a', exp: now() + 600 },
    kid ? { key: issuer.published.find((k) => k.kid === kid)! } : {},
  );
const bearer = async (kid?: string) => ({ authorization: `Bearer ${await token(kid)}` });

beforeEach(async () => {
  issuer = await startIssuer();
  clock = 1_000_000;
  stale = [];
});
afterEach(() => issuer.close());

describe('issuer keys', () => {
  it('fetches the key set once and verifies from it after', async () => {
    const auth = make();
    for (let i = 0; i < 5; i++) expect((await auth.authenticate(await bearer())).ok).toBe(true);
    expect(issuer.jwksRequests).toBe(1);
  });

  it('a token taken once is refused with its key once the key set past its age no longer holds that key', async () => {
    const auth = make();
    const same = await bearer();
    for (let i = 0; i < 2; i++) expect((await auth.authenticate(same)).ok).toBe(true);
    issuer.published = [await makeKey('key-2')];
    clock += 600_001;
    expect(await auth.authenticate(same)).toMatchObject({ ok: false, status: 401, why: expect.stringMatching(/no key of the issuer matches/) });
    expect(issuer.jwksRequests).toBe(2);
  });

  it('picks up a rotated key (new kid) once the cooldown has passed, and not before', async () => {
    const auth = make();
    await auth.authenticate(await bearer());
    issuer.published.push(await makeKey('key-2'));
    clock += 1_000;
    const early = await auth.authenticate(await bearer('key-2'));
    expect(early).toMatchObject({ ok: false, status: 401, why: expect.stringMatching(/no key of the issuer matches/) });
    expect(issuer.jwksRequests).toBe(1);
    clock += 30_000;
    expect((await auth.authenticate(await bearer('key-2'))).ok).toBe(true);
    expect(issuer.jwksRequests).toBe(2);
  });

  it('refetches at most once per cooldown however many unknown kids arrive', async () => {
    const auth = make();
    await auth.authenticate(await bearer());
    clock += 60_000;
    const forged = await Promise.all(
      Array.from({ length: 50 }, (_, i) => issuer.sign({ iss: issuer.url, aud: AUD, sub: 'x', exp: now() + 60 }, { header: { kid: `random-${i}` } })),
    );
    // One after another: concurrent ones would share a fetch anyway.
    for (const t of forged) expect(await auth.authenticate({ authorization: `Bearer ${t}` })).toMatchObject({ ok: false, status: 401 });
    expect(issuer.jwksRequests).toBe(2);
  });

  it('answers 503 while the key endpoint is down at start, and serves again once it is back', async () => {
    issuer.mode = 'down';
    const auth = make();
    const first = await auth.authenticate(await bearer());
    expect(first).toMatchObject({ ok: false, status: 503, why: expect.stringMatching(/signing keys from http:\/\/127\.0\.0\.1:\d+\/jwks unavailable/) });
    issuer.mode = 'error';
    clock += 1_000;
    // Within the retry interval: no new fetch, still 503 (not 401).
    expect(await auth.authenticate(await bearer())).toMatchObject({ ok: false, status: 503 });
    expect(issuer.jwksRequests).toBe(1);
    clock += 5_000;
    expect(await auth.authenticate(await bearer())).toMatchObject({ ok: false, status: 503, why: expect.stringMatching(/HTTP 500/) });
    issuer.mode = 'up';
    clock += 5_000;
    expect((await auth.authenticate(await bearer())).ok).toBe(true);
  });

  it('keeps verifying with the keys it holds when a refresh fails, and says so', async () => {
    const auth = make();
    await auth.authenticate(await bearer());
    issuer.mode = 'down';
    clock += 700_000; // past the 10-minute maximum age
    expect((await auth.authenticate(await bearer())).ok).toBe(true);
    expect(stale).toHaveLength(1);
    expect(issuer.jwksRequests).toBe(2);
  });

  it('answers 503 for an unknown kid while the endpoint is down: it may be a new key', async () => {
    const auth = make();
    await auth.authenticate(await bearer());
    issuer.published.push(await makeKey('key-2'));
    issuer.mode = 'error';
    clock += 31_000;
    expect(await auth.authenticate(await bearer('key-2'))).toMatchObject({ ok: false, status: 503 });
    issuer.mode = 'up';
    clock += 5_000;
    expect((await auth.authenticate(await bearer('key-2'))).ok).toBe(true);
  });

  // Issue 23, item 4: the warm-up at start fetches the keys before any request; when it
  // fails, the first request still tries for itself rather than waiting out the retry interval.
  it('a key fetch failed by the warm-up at start does not hold back the first request', async () => {
    issuer.mode = 'down';
    const auth = make();
    await expect(auth.warm()).rejects.toThrow(/signing keys from .* unavailable/);
    issuer.mode = 'up';
    clock += 1_000;
    expect((await auth.authenticate(await bearer())).ok).toBe(true);
    expect(issuer.jwksRequests).toBe(2);
  });

  it('an issuer discovery failed by the warm-up at start does not hold back the first request either', async () => {
    issuer.mode = 'down';
    // No SENDER_AUTH_JWKS_URL: the keys' address comes from the issuer's discovery document.
    const auth = senderAuthFromEnv({ SENDER_AUTH: 'oidc', SENDER_AUTH_ISSUER: issuer.url, SENDER_AUTH_AUDIENCE: AUD }, { keys: { now: () => clock } });
    await expect(auth.warm()).rejects.toThrow(/issuer discovery failed/);
    issuer.mode = 'up';
    expect((await auth.authenticate(await bearer())).ok).toBe(true);
  });

  it('treats an answer that is not a key set as unavailable (503)', async () => {
    issuer.jwksUrl = `${issuer.url}/.well-known/openid-configuration`;
    const auth = make();
    expect(await auth.authenticate(await bearer())).toMatchObject({ ok: false, status: 503, why: expect.stringMatching(/did not answer a JWK set/) });
  });
});
