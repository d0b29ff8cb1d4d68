import type { Runtime } from '../../runtime/runtime.js';
import { createSenderAuth, readSenderAuthConfig, type SenderAuth } from './auth.js';

// Who may send a serving process requests: built here, by the HTTP side, from the process's
// environment (SENDER_AUTH...), once per process (it holds the issuer's keys). The runtime
// knows nothing of senders; the standalone program and the CLI take no requests from them.

/**
 * The sender check `rt`'s environment asks for. The Kubernetes platform reads the issuer's
 * keys through the cluster connection, loaded when the keys are first fetched (by the warm-up,
 * else the first request), so a lazy start stays lazy until then; a failure there is a 503.
 * Throws SenderAuthConfigError naming every problem (hosts/server/setup.ts: exit 2 before listening).
 */
export function senderAuthOf(rt: Pick<Runtime, 'env' | 'kubeReady' | 'kubeConfig'>): SenderAuth {
  const config = readSenderAuthConfig(rt.env);
  return createSenderAuth(config, config.platform === 'kubernetes' ? { kubeConfig: async () => (await rt.kubeReady(), rt.kubeConfig) } : {});
}
