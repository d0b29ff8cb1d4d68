import { fetchableUrl, readSenderAuthConfig, SenderAuthConfigError, type Platform, type SenderAuthConfig } from './auth/config.js';
import { KeyStore, KeysUnavailableError, type KeySource, type KeyStoreOptions } from './auth/keys.js';
import { discoveryOf, fetchJson, kubeGetJson, kubeKeySource, urlKeySource, type KubeConnection } from './auth/sources.js';
import { verifyBearer, type AuthResult, type Headers } from './auth/verify.js';
import { VerifiedTokens } from './auth/verified-tokens.js';

// Sender authentication: who sent this request, from its headers alone, before any body is
// read. Created once per process (it holds the issuer's keys); the request wrapper calls
// `authenticate(req.headers)` first and answers `status` with `why` (and the
// WWW-Authenticate `challenge`) when it is not ok.
//
//   none        local development and the demo: every request is let through.
//   kubernetes  Knative Eventing's sender identity (feature authentication-oidc): a
//               ServiceAccount token requested for our audience, signed by the cluster's
//               service-account issuer; keys (and the issuer) read from the API server.
//   google      Cloud Run / Pub/Sub push / Cloud Scheduler: a Google-signed ID token for the
//               service URL, from an allowed service account.
//   oidc        any other OIDC issuer (keys from SENDER_AUTH_JWKS_URL or its discovery).
//
// Configuration: see ./auth/config.ts. 401 means refused; 503 means the issuer's keys could
// not be fetched and none are held yet (or a new kid cannot be checked), so the sender
// retries instead of dropping the event as unauthorised.

export type { AuthResult } from './auth/verify.js';
export { readSenderAuthConfig, SenderAuthConfigError } from './auth/config.js';

export interface SenderAuth {
  readonly platform: Platform;
  authenticate(headers: Headers): Promise<AuthResult>;
  /**
   * Fetch the keys (and discover the issuer) now, e.g. at start. A request arriving meanwhile
   * waits for this attempt; when it fails, the next request tries again at once (a failed
   * warm-up does not start the retry wait a failed request does).
   */
  warm(): Promise<void>;
  /** One line for the start-up log. */
  readonly summary: string;
}

export interface SenderAuthDeps {
  /**
   * The cluster connection (kubernetes), or how to get it on first use: needed unless
   * SENDER_AUTH_JWKS_URL and _ISSUER are set.
   */
  kubeConfig?: KubeConnection;
  keys?: KeyStoreOptions;
  now?: () => number;
}

const NONE: SenderAuth = {
  platform: 'none',
  authenticate: async () => ({ ok: true, subject: 'anonymous', issuer: 'none' }),
  warm: async () => {},
  summary: 'sender authentication off (SENDER_AUTH=none): any caller that reaches the service is served',
};

/** Reads and validates the configuration (throws SenderAuthConfigError listing every problem). */
export function senderAuthFromEnv(env: NodeJS.ProcessEnv = process.env, deps: SenderAuthDeps = {}): SenderAuth {
  return createSenderAuth(readSenderAuthConfig(env), deps);
}

export function createSenderAuth(config: SenderAuthConfig, deps: SenderAuthDeps = {}): SenderAuth {
  if (config.platform === 'none') return NONE;
  const { source, issuers, discovery } = wiring(config, deps);
  const store = new KeyStore(source, deps.keys);
  const verifyOptions = {
    audiences: config.audiences,
    issuers,
    getKey: store.getKey,
    subjects: config.subjects,
    subjectClaim: config.platform === 'google' ? ('email' as const) : ('sub' as const),
    clockToleranceSeconds: config.clockToleranceSeconds,
    ...(deps.now ? { now: deps.now } : {}),
    verified: { tokens: new VerifiedTokens(config.clockToleranceSeconds), keys: () => store.held() },
  };
  const allow = config.subjects.length ? `senders ${config.subjects.join(', ')}` : 'any sender of the issuer';
  return {
    platform: config.platform,
    authenticate: (headers) => verifyBearer(headers, verifyOptions),
    warm: async () => {
      await issuers({ warming: true });
      await discovery?.({ warming: true });
      await store.refresh({ warming: true });
    },
    summary: `sender authentication ${config.platform}: audience ${config.audiences.join(', ')}; issuer ${config.issuers.join(', ') || '(the API server’s)'}; keys from ${source.where}; ${allow}`,
  };
}

/** A lookup; `warming`: a failure does not hold back the next attempt (see `retrying`). */
type Lookup<T> = (opts?: { warming?: boolean }) => Promise<T>;

/** `discovery`: the issuer's discovery document, where the keys' address comes from it (oidc). */
function wiring(config: SenderAuthConfig, deps: SenderAuthDeps): { source: KeySource; issuers: Lookup<string[]>; discovery?: Lookup<string> } {
  const fixed = async () => config.issuers;
  if (config.platform === 'kubernetes') {
    const kc = config.jwksUrl && config.issuers.length ? undefined : deps.kubeConfig;
    if (!kc && !(config.jwksUrl && config.issuers.length)) {
      throw new SenderAuthConfigError(['SENDER_AUTH: kubernetes needs the cluster connection (or both SENDER_AUTH_JWKS_URL and SENDER_AUTH_ISSUER)']);
    }
    const source = config.jwksUrl ? urlKeySource(config.jwksUrl) : kubeKeySource(kc!);
    const discover = async () => [
      discoveryOf(await kubeGetJson(kc!, '/.well-known/openid-configuration', AbortSignal.timeout(5_000)), 'the API server').issuer,
    ];
    return { source, issuers: config.issuers.length ? fixed : retrying(discover) };
  }
  if (config.jwksUrl) return { source: urlKeySource(config.jwksUrl), issuers: fixed };
  // oidc without a JWKS URL: the issuer's discovery document names it (OIDC Discovery 1.0 §4).
  const issuer = config.issuers[0]!;
  const jwksUri = retrying(async () => {
    const where = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const found = discoveryOf(await fetchJson(where, AbortSignal.timeout(5_000)), where);
    if (found.issuer !== issuer) throw new Error(`${where} names issuer ${found.issuer}, not ${issuer}`);
    const bad = found.jwksUri ? fetchableUrl(found.jwksUri) : 'missing';
    if (bad) throw new Error(`${where}: jwks_uri ${bad}`);
    return found.jwksUri!;
  });
  return { source: { where: `the jwks_uri of ${issuer}`, fetch: async (s) => fetchJson(await jwksUri(), s) }, issuers: fixed, discovery: jwksUri };
}

/**
 * A lookup kept once it succeeds; after a failure, later requests retry it at most every 5 s.
 * A failed warm-up attempt is not counted: the first request still tries for itself.
 */
function retrying<T>(lookup: () => Promise<T>, retryMs = 5_000): Lookup<T> {
  let value: T | undefined;
  let pending: Promise<T> | undefined;
  let failed: { at: number; error: Error } | undefined;
  const unavailable = (error: Error) => new KeysUnavailableError(`issuer discovery failed: ${error.message}`, { cause: error });
  return async ({ warming = false } = {}) => {
    if (value !== undefined) return value;
    if (failed && Date.now() - failed.at < retryMs) throw unavailable(failed.error);
    pending ??= lookup()
      .then((found) => {
        value = found;
        failed = undefined;
        return found;
      })
      .catch((e: unknown) => {
        const error = e instanceof Error ? e : new Error(String(e));
        if (!warming) failed = { at: Date.now(), error };
        throw unavailable(error);
      })
      .finally(() => (pending = undefined));
    return pending;
  };
}
