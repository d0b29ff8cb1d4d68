// The metadata server's access token for the service's own account, reused until a minute
// before it expires (they last about an hour). One `MetadataTokens` per sender, built once with
// it (the outbox's Pub/Sub sink, a sweep's shard fan-out): the cache is the sender's, not the
// module's, so nothing here outlives what holds it.
const TIMEOUT_MS = 10_000;

export class MetadataTokens {
  private cached: { host: string; token: string; until: number } | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  async token(host: string): Promise<string> {
    const c = this.cached;
    if (c && c.host === host && this.now() < c.until) return c.token;
    const res = await fetch(`http://${host}/computeMetadata/v1/instance/service-accounts/default/token`, {
      headers: { 'Metadata-Flavor': 'Google' },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`metadata server token: HTTP ${res.status}`);
    const t = (await res.json()) as { access_token?: unknown; expires_in?: unknown };
    if (typeof t.access_token !== 'string' || t.access_token === '') throw new Error('metadata server token: no access_token');
    const ttl = typeof t.expires_in === 'number' ? t.expires_in : 300;
    this.cached = { host, token: t.access_token, until: this.now() + Math.max(0, ttl - 60) * 1000 };
    return t.access_token;
  }
}
