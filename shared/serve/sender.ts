// Who sent a request, decided from its headers alone, before the body is read. The
// verifiers per platform (Knative OIDC, Google-signed tokens) live in auth.ts; without one
// configured, every sender is accepted (local development), and the answer says so.

export type SenderVerdict = { ok: true; subject?: string } | { ok: false; status: 401 | 503; why: string };

export interface SenderCheck {
  /** What the check is, for the start log line ("none", "kubernetes issuer ..."). */
  describe(): string;
  authenticate(headers: Record<string, string | string[] | undefined>): Promise<SenderVerdict>;
}

export const ANY_SENDER: SenderCheck = {
  describe: () => 'none (every sender accepted)',
  authenticate: async () => ({ ok: true }),
};
