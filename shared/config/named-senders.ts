// A setting that names senders as sender authentication names them (DUE_TICK_SENDERS: who may
// tick; TRUSTED_POD_SENDERS: whose pod events are the read) means something only once senders
// are authenticated, and only for senders SENDER_AUTH_SUBJECTS lets through. One check for every
// such setting, so they cannot drift apart in what they refuse at start.
import type { z } from 'zod';

/** What the check reads of sender authentication's own settings (declared, and checked, by serve/http/auth/config.ts). */
export interface SenderAuthNames {
  SENDER_AUTH?: string | undefined;
  SENDER_AUTH_SUBJECTS?: string[] | undefined;
}

/**
 * Adds to `ctx`, under `key`, every problem with the senders it names: none named (`unset`
 * says what leaving it unset does instead), no sender authentication (every caller is then
 * `anonymous`, so a name would match nobody or, trusted, anybody), a name the sender check
 * refuses anyway (before any `what` is seen).
 */
export function checkNamedSenders(
  ctx: z.RefinementCtx,
  key: string,
  named: readonly string[],
  auth: SenderAuthNames,
  { unset, what }: { unset: string; what: string },
): void {
  const problem = (message: string) => ctx.addIssue({ code: 'custom', path: [key], message });
  if (!named.length) problem(`names no sender: unset it to ${unset}`);
  if (!auth.SENDER_AUTH || auth.SENDER_AUTH === 'none')
    problem('needs SENDER_AUTH (kubernetes, google or oidc): a sender is known only once it is authenticated');
  const subjects = auth.SENDER_AUTH_SUBJECTS;
  const unknown = subjects?.length ? named.filter((s) => !subjects.includes(s)) : [];
  if (unknown.length) problem(`${unknown.join(', ')} not in SENDER_AUTH_SUBJECTS: refused before any ${what} is seen`);
}
