import type { Runtime } from '../../runtime/runtime.js';
import type { SenderAuth } from '../../serve/http/auth.js';

// The warm-up at start of a serving process (issue 23, item 4): what the first request would
// otherwise pay for, started once the entry listens (WARM_AT_START): the sender check's issuer
// and keys, and the Kubernetes client (with the kubeconfig).

/** How long after the warm-up starts a lazy process loads its client (see `warmUp`). */
export const LAZY_CLIENT_WARM_MS = 250;

/**
 * The process's warm-up, to call once listening. Never rejects: a failure is logged once, and
 * the request that needs the part tries again as it would without the warm-up (neither the
 * keys nor the client keep a failed warm-up). A request arriving meanwhile waits for the
 * warm-up's attempt rather than starting its own. Same promise every call.
 */
export function warmUp(rt: Pick<Runtime, 'kubeReady' | 'log'>, auth: SenderAuth, { lazyKube }: { lazyKube: boolean }): () => Promise<void> {
  let warming: Promise<void> | undefined;
  return () =>
    (warming ??= (async () => {
      const started = Date.now();
      // The sender check first, then the client: loading the client holds the event loop
      // (~100 ms bundled) and would keep the issuer's requests off the wire meanwhile. A lazy
      // process (most events need no client) also waits a moment, so an event that came with
      // the start is answered first. A request that needs the client sooner loads it itself;
      // Kubernetes sender authentication loads it at once (its keys come through it).
      const keys = auth.warm();
      const moment = lazyKube ? new Promise((resolve) => setTimeout(resolve, LAZY_CLIENT_WARM_MS).unref()) : undefined;
      const client = Promise.allSettled([keys, moment]).then(() => rt.kubeReady());
      const problems = (await Promise.allSettled([client, keys])).flatMap((r, i) =>
        r.status === 'rejected' ? [`${i === 0 ? 'cluster client' : 'sender keys'}: ${(r.reason as Error)?.message ?? String(r.reason)}`] : [],
      );
      if (problems.length) rt.log.warn({ ms: Date.now() - started, problems }, 'warm-up at start failed: the first request that needs it tries again');
      else
        rt.log.info(
          { ms: Date.now() - started, senders: auth.platform },
          'warmed up: the first request that needs the cluster client or the sender keys has them',
        );
    })());
}
