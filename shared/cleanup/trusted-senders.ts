// Which senders' pod events are the read (docs/safety.md "When the event is the read"): an
// event that carries the whole pod (Resource mode) from a sender sender authentication
// names, and that this setting names, is what that source read from the API server's watch.
// podTerminated then decides on it and writes at its uid and resourceVersion, without a GET
// first; anything else (no sender authentication, Reference mode, a sender not named) is read
// from the API server before it is decided on. Read once at podTerminated's setup.
import { z } from 'zod';
import { list, readEnv } from '../config/env.js';
import { checkNamedSenders } from '../config/named-senders.js';

const Schema = z
  .object({
    /**
     * The senders whose Resource-mode Pod events podTerminated takes as the read, as sender
     * authentication names them (SENDER_AUTH_SUBJECTS' form; a Knative ApiServerSource with OIDC:
     * system:serviceaccount:<namespace>:<its OIDC ServiceAccount>). Their event's pod is decided on
     * and removed at its uid and resourceVersion (one request); a 409 reads the stored pod. Unset
     * (the default): none, every event's pod is read first. Needs SENDER_AUTH.
     */
    TRUSTED_POD_SENDERS: list.optional(),
    // Read only to check TRUSTED_POD_SENDERS against them.
    SENDER_AUTH: z.string().optional(),
    /** Read only to check TRUSTED_POD_SENDERS against them. */
    SENDER_AUTH_SUBJECTS: list.optional(),
  })
  .superRefine((e, ctx) => {
    // Without sender authentication every caller is `anonymous`: anyone who reaches the service would be trusted.
    if (e.TRUSTED_POD_SENDERS)
      checkNamedSenders(ctx, 'TRUSTED_POD_SENDERS', e.TRUSTED_POD_SENDERS, e, { unset: 'read every pod first, or name the source', what: 'event' });
  });

/** Whether an event's pod from `sender` (as sender authentication named it; none for an event a host hands over itself) is the read. */
export type TrustsSender = (sender: string | undefined) => boolean;

export function trustedSendersOf(env: NodeJS.ProcessEnv): TrustsSender {
  const named = new Set(readEnv(Schema, env).TRUSTED_POD_SENDERS ?? []);
  return (sender) => sender !== undefined && sender !== 'anonymous' && named.has(sender);
}

/** The schema as declared, for the generated reference (docs/reference/environment.md). */
export { Schema as TrustedSendersEnv };
