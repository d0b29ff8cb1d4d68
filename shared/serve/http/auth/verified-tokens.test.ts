import { createLocalJWKSet, type JWTVerifyGetKey } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeKey, type IssuerKey } from '../../../../test/fixtures/oidc-issuer.js';
import { SignJWT } from 'jose';
import { verifyBearer, type VerifyOptions } from './verify.js';
import { VerifiedTokens } from './verified-tokens.js';

// A token is verified once per key set (verified-tokens.ts): the same bytes again are taken
// without a signature check while the key set is the one held and the token has not expired;
// the sender allow-list is still checked each time, and refusals are never kept.

const ISS = 'https://issuer.test';
const AUD = 'kube-tidy/pod-terminated';
const SENDER = 'system:serviceaccount:kube-tidy:storm-sender';
const T0 = 1_800_000_000_000;

let key: IssuerKey;
beforeAll(async () => {
  key = await makeKey('key-1');
});

const sign = (claims: Record<string, unknown>) =>
  new SignJWT({ iss: ISS, aud: AUD, sub: SENDER, iat: T0 / 1000, exp: T0 / 1000 + 600, ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: key.kid })
    .sign(key.privateKey);

/** Options over one key set whose lookups are counted (one lookup per signature checked). */
function counted(over: Partial<VerifyOptions> & { keys?: () => object | undefined } = {}) {
  const local = createLocalJWKSet({ keys: [key.jwk] });
  const lookups = { n: 0 };
  const getKey: JWTVerifyGetKey = (h, t) => (lookups.n++, local(h, t));
  const clock = { ms: T0 };
  const o: VerifyOptions = {
    audiences: [AUD],
    issuers: async () => [ISS],
    getKey,
    subjects: [SENDER],
    subjectClaim: 'sub',
    clockToleranceSeconds: 30,
    now: () => clock.ms,
    verified: { tokens: new VerifiedTokens(30), keys: over.keys ?? (() => local) },
    ...over,
  };
  return { o, lookups, clock };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('verified tokens', () => {
  it('the same token a second time is taken without its signature checked again', async () => {
    const { o, lookups } = counted();
    const token = await sign({});
    for (let i = 0; i < 3; i++) expect(await verifyBearer(bearer(token), o)).toEqual({ ok: true, subject: SENDER, issuer: ISS });
    expect(lookups.n).toBe(1);
  });

  it('a token past its exp and the tolerance is refused, though verified before', async () => {
    const { o, clock } = counted();
    const token = await sign({ exp: T0 / 1000 + 60 });
    expect((await verifyBearer(bearer(token), o)).ok).toBe(true);
    clock.ms = T0 + 89_000;
    expect((await verifyBearer(bearer(token), o)).ok).toBe(true);
    clock.ms = T0 + 90_000;
    expect(await verifyBearer(bearer(token), o)).toMatchObject({ ok: false, status: 401, why: 'token expired' });
  });

  it('another key set held (a refresh, a rotation, keys past their age) checks the signature again', async () => {
    let held: object | undefined = {};
    const { o, lookups } = counted({ keys: () => held });
    const token = await sign({});
    await verifyBearer(bearer(token), o);
    held = {};
    await verifyBearer(bearer(token), o);
    held = undefined;
    await verifyBearer(bearer(token), o);
    await verifyBearer(bearer(token), o);
    expect(lookups.n).toBe(4);
  });

  it('the sender allow-list is checked on every use', async () => {
    const { o } = counted();
    const token = await sign({});
    expect((await verifyBearer(bearer(token), o)).ok).toBe(true);
    expect(await verifyBearer(bearer(token), { ...o, subjects: ['someone-else'] })).toMatchObject({ ok: false, status: 401, subject: SENDER });
  });

  it('a refused token is not kept: each attempt is checked and refused', async () => {
    const { o, lookups } = counted();
    const forged = `${(await sign({})).slice(0, -4)}AAAA`;
    for (let i = 0; i < 2; i++) expect(await verifyBearer(bearer(forged), o)).toMatchObject({ ok: false, why: 'signature does not verify' });
    expect(lookups.n).toBe(2);
  });

  it('holds at most its bound, the oldest going first', async () => {
    const tokens = new VerifiedTokens(30, 2);
    const keys = {};
    for (const t of ['a', 'b', 'c']) tokens.set(t, { exp: T0 / 1000 + 600 }, keys, T0);
    expect(tokens.get('a', keys, T0)).toBeUndefined();
    expect(tokens.get('b', keys, T0)).toBeDefined();
    expect(tokens.get('c', keys, T0)).toBeDefined();
  });
});
