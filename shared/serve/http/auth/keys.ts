import { timeoutSignal } from '../../../config/long-timeout.js';
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWSHeaderParameters, type FlattenedJWSInput } from 'jose';

// The issuer's public keys, held as jose's local JWK set and refreshed by hand rather than
// with createRemoteJWKSet, because:
//  - in a cluster the keys come from the API server, over its CA and with the pod's token,
//    which a plain URL fetch cannot do;
//  - when the key endpoint is down, the keys already held keep verifying (a remote set whose
//    cache aged out fails every request), and failed fetches are rate-limited too (a remote
//    set retries on every request).
// An unknown `kid` (a rotated key) triggers a refetch, at most once per cooldown: random kids
// from an attacker cannot turn kube-tidy into a load generator against its issuer.

/** Where a key set comes from (the API server, a URL). Throws when it cannot be had. */
export interface KeySource {
  /** For messages: where the keys come from, with no credentials. */
  readonly where: string;
  fetch(signal: AbortSignal): Promise<unknown>;
}

/** The keys cannot be had right now: the request should be retried (503), not refused. */
export class KeysUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KeysUnavailableError';
  }
}

export interface KeyStoreOptions {
  /** Keys older than this are refetched (a removed key stops verifying). Default 10 min. */
  maxAgeMs?: number;
  /** After a successful fetch, an unknown kid refetches only after this long. Default 30 s. */
  cooldownMs?: number;
  /** After a failed fetch, the next attempt waits this long. Default 5 s. */
  retryMs?: number;
  timeoutMs?: number;
  now?: () => number;
  /** Told when stale keys are kept because a refresh failed. */
  onStale?: (error: Error) => void;
}

type Resolver = ReturnType<typeof createLocalJWKSet>;

export class KeyStore {
  private local: Resolver | undefined;
  private fetchedAt = -Infinity;
  private attemptedAt = -Infinity;
  private lastError: Error | undefined;
  private pending: Promise<void> | undefined;
  private readonly maxAgeMs: number;
  private readonly cooldownMs: number;
  private readonly retryMs: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(
    private readonly source: KeySource,
    private readonly options: KeyStoreOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? 600_000;
    this.cooldownMs = options.cooldownMs ?? 30_000;
    this.retryMs = options.retryMs ?? 5_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.now = options.now ?? Date.now;
  }

  /** jose's key lookup: `jwtVerify(token, store.getKey, ...)`. */
  readonly getKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput) => {
    if (!this.local || this.now() - this.fetchedAt > this.maxAgeMs) await this.refresh();
    const local = this.local;
    if (!local) throw this.unavailable();
    try {
      return await local(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // Maybe a rotated key: look again, unless we just did.
      if (this.now() - this.fetchedAt < this.cooldownMs) throw error;
      await this.refresh();
      if (this.lastError && this.attemptedAt > this.fetchedAt) throw this.unavailable();
      return this.local!(header, token);
    }
  };

  /**
   * The key set getKey would verify with now without fetching (held and not past its age), or
   * undefined: what a token verified earlier must have been verified with to be taken again
   * (verified-tokens.ts). A new set, even with the same keys, is another object.
   */
  held(): object | undefined {
    return this.local && this.now() - this.fetchedAt <= this.maxAgeMs ? this.local : undefined;
  }

  /**
   * Fetches now unless a recent failure says wait; keeps the old keys when it fails.
   * `warming` (at start): a failure does not make the next request wait `retryMs`.
   */
  async refresh({ warming = false }: { warming?: boolean } = {}): Promise<void> {
    if (this.pending) return this.pending;
    if (this.lastError && this.now() - this.attemptedAt < this.retryMs) {
      if (!this.local) throw this.unavailable();
      return;
    }
    this.pending = this.load(warming).finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async load(warming: boolean): Promise<void> {
    this.attemptedAt = this.now();
    try {
      const json = await this.source.fetch(timeoutSignal(this.timeoutMs));
      this.local = createLocalJWKSet(asKeySet(json, this.source.where));
      this.fetchedAt = this.now();
      this.lastError = undefined;
    } catch (error) {
      this.lastError = error instanceof Error ? error : new Error(String(error));
      if (warming) this.attemptedAt = -Infinity;
      if (!this.local) throw this.unavailable();
      this.options.onStale?.(this.lastError);
    }
  }

  private unavailable(): KeysUnavailableError {
    const why = this.lastError?.message ?? 'not fetched yet';
    return new KeysUnavailableError(`signing keys from ${this.source.where} unavailable: ${why}`, { cause: this.lastError });
  }
}

function asKeySet(json: unknown, where: string): JSONWebKeySet {
  const keys = (json as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'object' && k !== null)) {
    throw new Error(`${where} did not answer a JWK set ({"keys": [...]})`);
  }
  return json as JSONWebKeySet;
}
