import { Watch, type CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { loadPolicyText } from '../policy/load.js';
import { PolicyError } from '../policy/errors.js';
import type { LoadedPolicy } from '../policy/policy.js';
import type { PolicySource } from './policy-source.js';

// The policy from a ConfigMap, read at start and re-read whenever it changes (see
// policy-source.ts). Its own module because it needs the Kubernetes client, which a runtime
// with a policy file loads only when a request first needs the cluster.

export async function configMapPolicySource(
  kc: KubeConfig,
  core: CoreV1Api,
  ref: { namespace: string; name: string; key: string },
  allowUnsupported: boolean,
  log: Logger,
): Promise<PolicySource> {
  const where = `ConfigMap ${ref.namespace}/${ref.name} key ${ref.key}`;
  const cm = await core.readNamespacedConfigMap({ namespace: ref.namespace, name: ref.name });
  const parse = (data: Record<string, string> | undefined): LoadedPolicy => {
    const text = data?.[ref.key];
    if (text === undefined) throw new PolicyError([{ path: '', message: `${where} has no such key` }]);
    return loadPolicyText(text, { allowUnsupported });
  };
  let loaded = parse(cm.data);
  let error: string | undefined;
  let resourceVersion = cm.metadata?.resourceVersion;
  let abort: AbortController | undefined;
  let closed = false;

  const onEvent = (phase: string, obj: { metadata?: { resourceVersion?: string }; data?: Record<string, string> }) => {
    resourceVersion = obj.metadata?.resourceVersion ?? resourceVersion;
    if (phase === 'DELETED') {
      error = `${where} was deleted; keeping the last good policy`;
      log.warn({ policySource: where }, error);
      return;
    }
    if (phase !== 'ADDED' && phase !== 'MODIFIED') return;
    try {
      loaded = parse(obj.data);
      error = undefined;
      log.info({ policySource: where, resourceVersion }, 'policy reloaded');
    } catch (e) {
      error = `${where} edit refused, keeping the last good policy: ${(e as Error).message}`;
      log.error({ policySource: where, err: (e as Error).message }, 'policy edit refused');
    }
  };

  const start = async (): Promise<void> => {
    if (closed) return;
    const watch = new Watch(kc);
    abort = await watch.watch(
      `/api/v1/namespaces/${ref.namespace}/configmaps`,
      { fieldSelector: `metadata.name=${ref.name}`, resourceVersion, allowWatchBookmarks: true },
      onEvent,
      (err) => {
        if (closed) return;
        // Watches end routinely (server timeouts); resume from the last version seen, and
        // start over from the current version if that one has expired.
        if (err) log.warn({ policySource: where, err: String(err) }, 'policy watch ended; resuming');
        if (String(err).includes('410')) resourceVersion = undefined;
        setTimeout(() => void start().catch((e) => log.error({ err: String(e) }, 'policy watch failed')), err ? 1000 : 0).unref();
      },
    );
  };
  await start();

  return {
    current: () => loaded,
    lastError: () => error,
    describe: () => where,
    close: () => {
      closed = true;
      abort?.abort();
    },
  };
}
