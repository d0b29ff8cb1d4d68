import type { JWTPayload } from 'jose';

// Tokens already verified, by their exact text (issue 45, item 6). A Knative source sends the
// same token with every event for an hour (the adapter caches it until 5 minutes before its
// expiry), and checking its signature again was a tenth of the event path's samples in a storm
// (an RSA verify through WebCrypto per request). The answer for the same bytes, against the
// same key set, with the same issuers and audiences, can only change with time: an entry is
// used while the key set it was verified with is the one held (a refresh, a rotation or a key
// set past its age ends it, see KeyStore.held) and before the token's exp (with the clock
// tolerance, as jose checks it); nbf and iat, past when it was verified, stay past. The sender
// allow-list is checked on every use. Refusals are not kept: a bad token pays every time.

/** How many tokens are held: a source per trigger sends one at a time, a few hundred is plenty. */
export const VERIFIED_TOKENS_MAX = 256;

interface Entry {
  payload: JWTPayload;
  keys: object;
  /** ms: when exp (plus the tolerance) passes. */
  until: number;
}

export class VerifiedTokens {
  private readonly held = new Map<string, Entry>();

  constructor(
    private readonly toleranceSeconds: number,
    private readonly max = VERIFIED_TOKENS_MAX,
  ) {}

  /** The payload verified for `token` with `keys` (the key set held now), while still valid at `nowMs`. */
  get(token: string, keys: object | undefined, nowMs: number): JWTPayload | undefined {
    const entry = this.held.get(token);
    if (!entry) return undefined;
    if (entry.keys !== keys || nowMs >= entry.until) {
      this.held.delete(token);
      return undefined;
    }
    return entry.payload;
  }

  /** `token` verified with `keys`; its payload has a numeric exp (a required claim). */
  set(token: string, payload: JWTPayload, keys: object | undefined, nowMs: number): void {
    const until = (Number(payload.exp) + this.toleranceSeconds) * 1000;
    if (!keys || !(until > nowMs)) return;
    // The oldest goes first (a Map keeps insertion order).
    if (this.held.size >= this.max) this.held.delete(this.held.keys().next().value!);
    this.held.set(token, { payload, keys, until });
  }
}
