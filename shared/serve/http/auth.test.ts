import { exportSPKI, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKey, part, startIssuer, type IssuerKey, type LocalIssuer } from '../../../test/fixtures/oidc-issuer.js';
import { senderAuthFromEnv, type AuthResult, type SenderAuth } from './auth.js';

// The verifier against a local issuer (keys generated here, JWKS on 127.0.0.1): one valid
// token accepted, every kind of bad token refused with 401 and its reason.

const AUD = 'serving.knative.dev/service/kube-tidy/pod-terminated';
const SENDER = 'system:serviceaccount:kube-tidy:pod-terminated-pod-add-oidc-eventing.knative.dev-trigger';
const now = () => Math.floor(Date.now() / 1000);

let issuer: LocalIssuer;
let auth: SenderAuth;
let stranger: IssuerKey;

beforeAll(async () => {
  issuer = await startIssuer();
  stranger = await makeKey('key-1');
  auth = senderAuthFromEnv({
    SENDER_AUTH: 'oidc',
    SENDER_AUTH_ISSUER: issuer.url,
    SENDER_AUTH_JWKS_URL: issuer.jwksUrl,
    SENDER_AUTH_AUDIENCE: `other,${AUD}`,
    SENDER_AUTH_SUBJECTS: SENDER,
  });
});
afterAll(() => issuer.close());

const claims = (over: Record<string, unknown> = {}) => ({ iss: issuer.url, aud: AUD, sub: SENDER, iat: now(), exp: now() + 600, ...over });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const refused =
  (why: RegExp, status = 401) =>
  (r: AuthResult) => {
    expect(r).toMatchObject({ ok: false, status });
    expect(r.ok || r.why).toMatch(why);
  };

describe('sender authentication (oidc, local issuer)', () => {
  it('accepts a valid token and names the sender', async () => {
    expect(await auth.authenticate(bearer(await issuer.sign(claims())))).toEqual({ ok: true, subject: SENDER, issuer: issuer.url });
  });

  it('accepts an expired token still inside the clock tolerance (30 s)', async () => {
    expect((await auth.authenticate(bearer(await issuer.sign(claims({ exp: now() - 10 }))))).ok).toBe(true);
  });

  it('accepts a token issued a little in the future, inside the clock tolerance, and one without iat', async () => {
    expect((await auth.authenticate(bearer(await issuer.sign(claims({ iat: now() + 10 }))))).ok).toBe(true);
    expect((await auth.authenticate(bearer(await issuer.sign(claims({ iat: undefined }))))).ok).toBe(true);
  });

  const cases: [string, () => Promise<Record<string, string | string[]>>, RegExp][] = [
    ['no Authorization header', async () => ({}), /no Authorization header/],
    ['an empty Authorization header', async () => ({ authorization: '' }), /no Authorization header/],
    ['two Authorization headers', async () => ({ authorization: ['Bearer a.b.c', 'Bearer a.b.c'] }), /more than one/],
    ['Basic credentials', async () => ({ authorization: 'Basic dXNlcjpwYXNz' }), /not "Bearer <token>"/],
    ['"Bearer" and nothing else', async () => ({ authorization: 'Bearer' }), /not "Bearer <token>"/],
    ['a token with spaces', async () => ({ authorization: 'Bearer a.b c' }), /not "Bearer <token>"/],
    ['a token of two parts', async () => bearer('abc.def'), /not a JWT/],
    ['a token with non-base64url characters', async () => bearer('ab+c.def.g/h'), /not a JWT/],
    ['three parts that are not JSON', async () => bearer('abc.def.ghi'), /malformed token/],
    ['a 20 KB header', async () => bearer('a'.repeat(20_000)), /too long/],
    ['an expired token', async () => bearer(await issuer.sign(claims({ exp: now() - 120 }))), /token expired/],
    ['a token not yet valid', async () => bearer(await issuer.sign(claims({ nbf: now() + 300 }))), /not yet valid/],
    ['a token without exp', async () => bearer(await issuer.sign(claims({ exp: undefined }))), /no "exp" claim/],
    // As the API server's own verifier (go-jose: ErrIssuedInTheFuture), past the clock tolerance.
    [
      'a token issued an hour in the future',
      async () => bearer(await issuer.sign(claims({ iat: now() + 3600, exp: now() + 4200 }))),
      /issued in the future \(iat\)/,
    ],
    [
      'a token issued past the clock tolerance (60 s ahead)',
      async () => bearer(await issuer.sign(claims({ iat: now() + 60 }))),
      /issued in the future \(iat\)/,
    ],
    ['a token whose iat is not a number', async () => bearer(await issuer.sign(claims({ iat: 'yesterday' }))), /"iat" claim is not a number/],
    [
      'a token for another audience',
      async () => bearer(await issuer.sign(claims({ aud: 'serving.knative.dev/service/kube-tidy/sweep' }))),
      /audience not accepted/,
    ],
    ['a token from another issuer', async () => bearer(await issuer.sign(claims({ iss: 'https://kubernetes.default.svc' }))), /issuer not accepted/],
    ['an unsigned token (alg none)', async () => bearer(`${part({ alg: 'none', typ: 'JWT' })}.${part(claims())}.`), /algorithm not accepted/],
    ['HS256 signed with the public key as the secret', async () => bearer(await hs256WithPublicKey()), /algorithm not accepted/],
    ['a token signed by another key under the known kid', async () => bearer(await issuer.sign(claims(), { key: stranger })), /signature does not verify/],
    [
      'a token whose kid the issuer does not have',
      async () => bearer(await issuer.sign(claims(), { header: { kid: 'nobody' } })),
      /no key of the issuer matches/,
    ],
    [
      'a sender not in the allowlist',
      async () => bearer(await issuer.sign(claims({ sub: 'system:serviceaccount:default:default' }))),
      /sender "system:serviceaccount:default:default" is not allowed/,
    ],
    [
      "a token Cloud Run's IAM check has stripped",
      async () => ({ authorization: `Bearer ${part({ alg: 'RS256' })}.${part(claims())}.SIGNATURE_REMOVED_BY_GOOGLE` }),
      /invoker IAM check/,
    ],
  ];

  it.each(cases)('refuses %s with 401 and why', async (_name, headers, why) => {
    refused(why)(await auth.authenticate(await headers()));
  });

  it('answers a challenge fit for WWW-Authenticate', async () => {
    const missing = await auth.authenticate({});
    expect(missing.ok || missing.challenge).toBe('Bearer');
    const expired = await auth.authenticate(bearer(await issuer.sign(claims({ exp: now() - 120 }))));
    expect(expired.ok || expired.challenge).toBe('Bearer error="invalid_token", error_description="token expired"');
  });
});

async function hs256WithPublicKey(): Promise<string> {
  const pem = await exportSPKI(issuer.published[0]!.publicKey);
  return new SignJWT(claims()).setProtectedHeader({ alg: 'HS256', kid: 'key-1' }).sign(new TextEncoder().encode(pem));
}

describe('sender authentication (google, local issuer standing in for Google)', () => {
  // This machine cannot reach Google: the JWKS URL points at the local issuer, which signs
  // tokens shaped like Cloud Scheduler's and Pub/Sub push's (iss accounts.google.com, email).
  const URL = 'https://kube-tidy-sweep-123456789.europe-west1.run.app/';
  const SA = 'kube-tidy-scheduler@project.iam.gserviceaccount.com';
  let google: SenderAuth;
  beforeAll(() => {
    google = senderAuthFromEnv({ SENDER_AUTH: 'google', SENDER_AUTH_JWKS_URL: issuer.jwksUrl, SENDER_AUTH_AUDIENCE: URL, SENDER_AUTH_SUBJECTS: SA });
  });
  const googleClaims = (over: Record<string, unknown> = {}) => ({
    iss: 'https://accounts.google.com',
    aud: URL,
    sub: '1044',
    email: SA,
    email_verified: true,
    iat: now(),
    exp: now() + 3600,
    ...over,
  });

  it("accepts a token of an allowed service account and names it by email (either of Google's iss forms)", async () => {
    expect(await google.authenticate(bearer(await issuer.sign(googleClaims())))).toEqual({ ok: true, subject: SA, issuer: 'https://accounts.google.com' });
    expect((await google.authenticate(bearer(await issuer.sign(googleClaims({ iss: 'accounts.google.com' }))))).ok).toBe(true);
  });

  it('refuses another service account, an unverified email, and a token without email', async () => {
    refused(/"other@project.iam.gserviceaccount.com" is not allowed/)(
      await google.authenticate(bearer(await issuer.sign(googleClaims({ email: 'other@project.iam.gserviceaccount.com' })))),
    );
    refused(/no verified email/)(await google.authenticate(bearer(await issuer.sign(googleClaims({ email_verified: false })))));
    refused(/no verified email/)(await google.authenticate(bearer(await issuer.sign(googleClaims({ email: undefined })))));
  });

  it('refuses the right service account for another service', async () => {
    refused(/audience not accepted/)(
      await google.authenticate(bearer(await issuer.sign(googleClaims({ aud: 'https://kube-tidy-invoke-123456789.europe-west1.run.app/' })))),
    );
  });
});

describe('sender authentication (oidc discovery, none)', () => {
  it('finds the keys through the issuer discovery document', async () => {
    const discovered = senderAuthFromEnv({ SENDER_AUTH: 'oidc', SENDER_AUTH_ISSUER: issuer.url, SENDER_AUTH_AUDIENCE: AUD });
    expect(await discovered.authenticate(bearer(await issuer.sign(claims({ sub: 'anyone' }))))).toEqual({ ok: true, subject: 'anyone', issuer: issuer.url });
  });

  it('lets everything through when off', async () => {
    expect(await senderAuthFromEnv({}).authenticate({})).toEqual({ ok: true, subject: 'anonymous', issuer: 'none' });
  });
});
