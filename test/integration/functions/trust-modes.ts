// podTerminated's two ways to take a pod event, for tests that must hold in both: `read-then-write`
// (today's default: the stored pod is read before it is decided on) and `trusted` (sender
// authentication on, the event's source named in TRUSTED_POD_SENDERS: a Resource-mode pod is
// the read, written at its uid and resourceVersion). Tokens are real: ServiceAccount tokens
// minted with the TokenRequest API for podTerminated's audience, checked against the API
// server's issuer, as Knative's ApiServerSource with OIDC sends them.
import { CoreV1Api } from '@kubernetes/client-node';
import { sharedCluster } from '../../harness/index.js';

export type TrustMode = 'read-then-write' | 'trusted';
export const TRUST_MODES: readonly TrustMode[] = ['read-then-write', 'trusted'];

export const AUDIENCE = 'serving.knative.dev/service/kube-tidy/pod-terminated';

/** How sender authentication names a ServiceAccount of `ns`. */
export const sa = (ns: string, name: string): string => `system:serviceaccount:${ns}:${name}`;

/** A token of ServiceAccount `name` (created when missing) for podTerminated's audience. */
export async function mint(ns: string, name: string): Promise<string> {
  const core = sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
  await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name } } }).catch(() => undefined);
  const r = await core.createNamespacedServiceAccountToken({ name, namespace: ns, body: { spec: { audiences: [AUDIENCE], expirationSeconds: 600 } } });
  return r.status!.token!;
}

/**
 * The environment of a podTerminated that authenticates its senders and takes `source`'s
 * Resource-mode pods as the read; `intruder` is let through too (an authenticated sender the
 * setting does not name: read first, as anyone's).
 */
export const trustedEnv = (ns: string): Record<string, string> => ({
  SENDER_AUTH: 'kubernetes',
  SENDER_AUTH_AUDIENCE: AUDIENCE,
  SENDER_AUTH_SUBJECTS: `${sa(ns, 'source')},${sa(ns, 'intruder')}`,
  TRUSTED_POD_SENDERS: sa(ns, 'source'),
});

/** The environment of `mode`, and the headers its events are sent with (the named source's token when trusted). */
export async function modeOf(mode: TrustMode, ns: string): Promise<{ env: Record<string, string>; headers: Record<string, string> }> {
  if (mode === 'read-then-write') return { env: {}, headers: {} };
  return { env: trustedEnv(ns), headers: { authorization: `Bearer ${await mint(ns, 'source')}` } };
}
