// A real validating admission webhook on CREATE of lifecycle.k8s.io EvictionRequests in one
// namespace, for the crash test only: while `hold` is set, a create waits inside the API server
// until the test answers, so a function process can be killed with its create in flight and
// the test then decides whether that create lands ('allow') or never does ('deny').
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { waitFor } from '../../harness/index.js';
import { validatingWebhook } from './webhook.js';

export interface EvictionRequestHold {
  /** Non-dry-run creates seen, by EvictionRequest name. */
  seen: string[];
  /** While set, a create waits for its answer. */
  hold?: (name: string) => Promise<'allow' | 'deny'>;
  stop(): Promise<void>;
}

export async function startEvictionRequestHold(kc: KubeConfig, ns: string): Promise<EvictionRequestHold> {
  let calls = 0;
  const h: EvictionRequestHold = { seen: [], stop: async () => {} };
  const registration = {
    name: `kube-tidy-test-er-hold-${ns}`,
    webhook: 'er-hold.test.kube-tidy.dev',
    path: '/',
    group: 'lifecycle.k8s.io',
    version: 'v1alpha1',
    resource: 'evictionrequests',
    timeoutSeconds: 30,
  };
  const { stop } = await validatingWebhook(kc, ns, registration, async ({ uid, name, dryRun }) => {
    calls++;
    let allowed = true;
    if (!dryRun) {
      h.seen.push(name);
      if (h.hold) allowed = (await h.hold(name)) === 'allow';
    }
    return allowed ? { uid, allowed } : { uid, allowed, status: { code: 500, message: 'test webhook: held and denied' } };
  });
  h.stop = stop;
  // The API server picks a new configuration up asynchronously: dry-run creates until it calls.
  const custom = kc.makeApiClient(CustomObjectsApi);
  const probe = {
    apiVersion: 'lifecycle.k8s.io/v1alpha1',
    kind: 'EvictionRequest',
    metadata: { name: 'probe' },
    spec: { target: { pod: { name: 'probe', uid: '00000000-0000-0000-0000-000000000000' } }, requester: 'test.kube-tidy.dev/probe', intent: 'Eviction' },
  };
  await waitFor('the EvictionRequest webhook to be called', async () => {
    await custom
      .createNamespacedCustomObject({ group: 'lifecycle.k8s.io', version: 'v1alpha1', plural: 'evictionrequests', namespace: ns, body: probe, dryRun: 'All' })
      .catch(() => {});
    return calls > 0;
  });
  return h;
}
