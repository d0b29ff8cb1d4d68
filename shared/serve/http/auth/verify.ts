import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { KeysUnavailableError } from './keys.js';
import type { VerifiedTokens } from './verified-tokens.js';

// One bearer token, checked from the headers alone: well-formed, signed by a key of the
// issuer with an asymmetric algorithm, for one of our audiences, by our issuer, inside its
// validity window, and by an allowed sender. Every refusal names its reason.

export type AuthResult =
  | { ok: true; subject: string; issuer: string }
  /** 401: refused, retrying the same token will not help. 503: the keys could not be had, retry. */
  | { ok: false; status: 401 | 503; why: string; challenge: string; subject?: string };

/**
 * Asymmetric only: a symmetric (HS*) algorithm would let anyone holding the public key sign,
 * and `none` signs nothing. Kubernetes signs RS256 or ES256, Google RS256.
 */
export const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** A JWT is three base64url parts; kube and Google tokens are 1-2 KB. Anything else is malformed. */
const TOKEN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const MAX_TOKEN = 8192;

export interface VerifyOptions {
  audiences: string[];
  issuers: () => Promise<string[]>;
  getKey: JWTVerifyGetKey;
  subjects: string[];
  /** google: the allowlist names the verified `email`, not the numeric `sub`. */
  subjectClaim: 'sub' | 'email';
  clockToleranceSeconds: number;
  now?: () => number;
  /** Tokens verified before, and the key set held now (KeyStore.held): a token is checked once per key set. */
  verified?: { tokens: VerifiedTokens; keys: () => object | undefined };
}

export type Headers = Record<string, string | string[] | undefined>;

/** A refusal; the challenge (RFC 6750 §3) names the error only when a token was presented. */
export function refuse(why: string, status: 401 | 503 = 401, presented = true): AuthResult {
  // Printable ASCII without quotes: the reason goes into a response header.
  const description = why.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '');
  const challenge = status === 401 && presented ? `Bearer error="invalid_token", error_description="${description}"` : 'Bearer';
  return { ok: false, status, why, challenge };
}

/** The token from `Authorization: Bearer <token>`, or why there is none. */
export function bearerToken(headers: Headers): { token: string } | { why: string; missing?: true } {
  const raw = headers.authorization ?? headers.Authorization;
  if (raw === undefined || raw === '') return { why: 'no Authorization header: a bearer token from the platform is required', missing: true };
  if (Array.isArray(raw)) return { why: 'more than one Authorization header' };
  if (raw.length > MAX_TOKEN + 16) return { why: 'Authorization header too long' };
  const match = /^Bearer +(\S+)$/i.exec(raw);
  if (!match) return { why: 'Authorization header is not "Bearer <token>"' };
  const token = match[1]!;
  if (token.endsWith('.SIGNATURE_REMOVED_BY_GOOGLE')) {
    return {
      why: "the token's signature was removed by Cloud Run's invoker IAM check; to verify it here, disable that check (run.googleapis.com/invoker-iam-disabled)",
    };
  }
  if (!TOKEN.test(token)) return { why: 'bearer token is not a JWT (three base64url parts)' };
  return { token };
}

export async function verifyBearer(headers: Headers, o: VerifyOptions): Promise<AuthResult> {
  const found = bearerToken(headers);
  if ('why' in found) return refuse(found.why, 401, !('missing' in found));
  const nowMs = o.now ? o.now() : Date.now();
  const known = o.verified?.tokens.get(found.token, o.verified.keys(), nowMs);
  if (known) return allowed(known, o);
  let payload: JWTPayload;
  try {
    const issuers = await o.issuers();
    ({ payload } = await jwtVerify(found.token, o.getKey, {
      algorithms: ALGORITHMS,
      audience: o.audiences,
      issuer: issuers,
      clockTolerance: o.clockToleranceSeconds,
      requiredClaims: ['exp', 'iss', 'aud', 'sub'],
      ...(o.now ? { currentDate: new Date(o.now()) } : {}),
    }));
  } catch (error) {
    if (error instanceof KeysUnavailableError) return refuse(error.message, 503);
    return refuse(describe(error));
  }
  // jose checks iat only for a maximum age; the API server's verifier (go-jose) refuses a
  // token issued in the future, past the same tolerance. A token without iat is not refused.
  if (typeof payload.iat === 'number' && payload.iat > nowMs / 1000 + o.clockToleranceSeconds) return refuse('token issued in the future (iat)');
  o.verified?.tokens.set(found.token, payload, o.verified.keys(), nowMs);
  return allowed(payload, o);
}

function allowed(payload: JWTPayload, o: VerifyOptions): AuthResult {
  let subject = payload.sub!;
  if (o.subjectClaim === 'email') {
    // An email is an identity only once Google says it verified it.
    if (typeof payload.email === 'string' && payload.email_verified === true) subject = payload.email;
    else if (o.subjects.length) return refuse('token carries no verified email (service-account tokens must include it)');
  }
  if (o.subjects.length && !o.subjects.includes(subject))
    return { ...refuse(`sender ${JSON.stringify(subject)} is not allowed (SENDER_AUTH_SUBJECTS)`), subject } as AuthResult;
  return { ok: true, subject, issuer: payload.iss! };
}

function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'token expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return `token has no "${error.claim}" claim`;
    switch (error.claim) {
      case 'nbf':
        return 'token not yet valid (nbf)';
      case 'iat':
        return error.reason === 'invalid' ? 'token "iat" claim is not a number' : 'token issued in the future (iat)';
      case 'iss':
        return 'issuer not accepted';
      case 'aud':
        return 'audience not accepted';
      default:
        return `claim "${error.claim}" invalid`;
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'signing algorithm not accepted (asymmetric algorithms only)';
  if (error instanceof errors.JWKSNoMatchingKey) return "no key of the issuer matches the token's kid and alg";
  if (error instanceof errors.JWKSMultipleMatchingKeys) return 'token has no kid and the issuer has several keys';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'signature does not verify';
  if (error instanceof errors.JOSENotSupported) return 'token uses an unsupported algorithm or key';
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return `malformed token: ${(error as Error).message}`;
  return `token refused: ${(error as Error)?.message ?? String(error)}`;
}
