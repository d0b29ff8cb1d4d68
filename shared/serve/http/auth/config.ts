import { z } from 'zod';
import { ConfigError, describeIssues } from '../../../config/env.js';

// Sender authentication, configured from the environment and checked once at start: every
// problem is reported at once, each with its variable name, before any request is taken. Each
// variable's meaning is beside it in the schema below (docs/reference/environment.md reads it).

export const PLATFORMS = ['none', 'kubernetes', 'google', 'oidc'] as const;
export type Platform = (typeof PLATFORMS)[number];

export const GOOGLE_ISSUERS = ['https://accounts.google.com', 'accounts.google.com'];
export const GOOGLE_JWKS_URL = 'https://www.googleapis.com/oauth2/v3/certs';

const list = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== ''),
  )
  .optional();

/** https, or plain http to this machine only (a local issuer in tests and development). */
export function fetchableUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return undefined;
  return 'must be https (plain http only to 127.0.0.1, localhost or [::1])';
}

const Env = z
  .object({
    /** Who may call: `none` (the default: local development), `kubernetes`, `google` or `oidc`. */
    SENDER_AUTH: z.enum(PLATFORMS).default('none'),
    /** Accepted `aud` values, comma-separated (required unless none). */
    SENDER_AUTH_AUDIENCE: list,
    /** Expected `iss`; kubernetes: default the API server's own (discovered); google: https://accounts.google.com; oidc: required. */
    SENDER_AUTH_ISSUER: z.string().trim().min(1).optional(),
    /**
     * Where the keys are; kubernetes: default the API server's /openid/v1/jwks through the cluster
     * connection; google: Google's certs; oidc: default from the issuer's discovery document.
     */
    SENDER_AUTH_JWKS_URL: z.string().trim().min(1).optional(),
    /**
     * Allowed senders, comma-separated: `sub` (kubernetes: system:serviceaccount:<ns>:<name>) or,
     * for google, the verified `email` of the service account; required for google.
     */
    SENDER_AUTH_SUBJECTS: list,
    /** Slack for exp/nbf/iat. */
    SENDER_AUTH_CLOCK_TOLERANCE_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  })
  .superRefine((e, ctx) => {
    const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (e.SENDER_AUTH === 'none') return;
    if (!e.SENDER_AUTH_AUDIENCE?.length)
      problem('SENDER_AUTH_AUDIENCE', `required when SENDER_AUTH is ${e.SENDER_AUTH}: the audience senders request tokens for`);
    if (e.SENDER_AUTH_JWKS_URL) {
      const bad = fetchableUrl(e.SENDER_AUTH_JWKS_URL);
      if (bad) problem('SENDER_AUTH_JWKS_URL', bad);
    }
    if (e.SENDER_AUTH === 'oidc') {
      if (!e.SENDER_AUTH_ISSUER) problem('SENDER_AUTH_ISSUER', 'required when SENDER_AUTH is oidc');
      else if (!e.SENDER_AUTH_JWKS_URL) {
        // The keys are then found through the issuer's discovery document.
        const bad = fetchableUrl(e.SENDER_AUTH_ISSUER);
        if (bad) problem('SENDER_AUTH_ISSUER', `${bad} (or set SENDER_AUTH_JWKS_URL)`);
      }
    }
    // Google signs an ID token for any audience to any Google account that asks: the
    // audience alone says nothing about who sent it.
    if (e.SENDER_AUTH === 'google' && !e.SENDER_AUTH_SUBJECTS?.length) {
      problem(
        'SENDER_AUTH_SUBJECTS',
        'required when SENDER_AUTH is google: the service-account emails allowed to call (any Google account can get a token for any audience)',
      );
    }
  });

export interface SenderAuthConfig {
  platform: Platform;
  audiences: string[];
  /** Accepted `iss` values; empty for kubernetes without SENDER_AUTH_ISSUER (discovered). */
  issuers: string[];
  jwksUrl?: string;
  /** Empty: any subject the issuer vouches for. */
  subjects: string[];
  clockToleranceSeconds: number;
}

/** A ConfigError (the process does not start), named for what it is about. */
export class SenderAuthConfigError extends ConfigError {
  constructor(problems: string[]) {
    super(problems);
    this.message = `invalid sender authentication configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`;
    this.name = 'SenderAuthConfigError';
  }
}

export function readSenderAuthConfig(env: NodeJS.ProcessEnv = process.env): SenderAuthConfig {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    throw new SenderAuthConfigError(describeIssues(parsed.error.issues, 'SENDER_AUTH'));
  }
  const e = parsed.data;
  const issuers = e.SENDER_AUTH_ISSUER ? [e.SENDER_AUTH_ISSUER] : e.SENDER_AUTH === 'google' ? GOOGLE_ISSUERS : [];
  const jwksUrl = e.SENDER_AUTH_JWKS_URL ?? (e.SENDER_AUTH === 'google' ? GOOGLE_JWKS_URL : undefined);
  return {
    platform: e.SENDER_AUTH,
    audiences: e.SENDER_AUTH_AUDIENCE ?? [],
    issuers,
    ...(jwksUrl ? { jwksUrl } : {}),
    subjects: e.SENDER_AUTH_SUBJECTS ?? [],
    clockToleranceSeconds: e.SENDER_AUTH_CLOCK_TOLERANCE_SECONDS,
  };
}

/** The schema as declared, for the generated reference (docs/reference/environment.md). */
export { Env as SenderAuthEnv };
