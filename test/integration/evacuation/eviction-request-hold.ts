// A real validating admission webhook on CREATE of lifecycle.k8s.io EvictionRequests in one
// namespace, for the crash test only: while `hold` is set, a create waits inside the API server
// until the test answers, so a function process can be killed with its create in flight and
// the test then decides whether that create lands ('allow') or never does ('deny').
import { createServer, type Server } from 'node:https';
import { AdmissionregistrationV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { waitFor } from '../../harness/index.js';
import { certificate } from './webhook.js';

export interface EvictionRequestHold {
  /** Non-dry-run creates seen, by EvictionRequest name. */
  seen: string[];
  /** While set, a create waits for its answer. */
  hold?: (name: string) => Promise<'allow' | 'deny'>;
  stop(): Promise<void>;
}

export async function startEvictionRequestHold(kc: KubeConfig, ns: string): Promise<EvictionRequestHold> {
  const { key, cert } = certificate();
  let calls = 0;
  const h: EvictionRequestHold = { seen: [], stop: async () => {} };
  const server: Server = createServer({ key, cert }, (req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += String(c)));
    req.on('end', async () => {
      const { uid, name, dryRun } = (JSON.parse(raw) as { request: { uid: string; name: string; dryRun?: boolean } }).request;
      calls++;
      let allowed = true;
      if (!dryRun) {
        h.seen.push(name);
        if (h.hold) allowed = (await h.hold(name)) === 'allow';
      }
      const response = allowed ? { uid, allowed } : { uid, allowed, status: { code: 500, message: 'test webhook: held and denied' } };
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const admission = kc.makeApiClient(AdmissionregistrationV1Api);
  const name = `kube-tidy-test-er-hold-${ns}`;
  await admission.createValidatingWebhookConfiguration({
    body: {
      metadata: { name },
      webhooks: [
        {
          name: 'er-hold.test.kube-tidy.dev',
          clientConfig: { url: `https://127.0.0.1:${port}/`, caBundle: Buffer.from(cert).toString('base64') },
          rules: [{ operations: ['CREATE'], apiGroups: ['lifecycle.k8s.io'], apiVersions: ['v1alpha1'], resources: ['evictionrequests'], scope: 'Namespaced' }],
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
          sideEffects: 'NoneOnDryRun',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
          timeoutSeconds: 30,
        },
      ],
    },
  });
  h.stop = async () => {
    await admission.deleteValidatingWebhookConfiguration({ name }).catch(() => {});
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  // The API server picks a new configuration up asynchronously: dry-run creates until it calls.
  const custom = kc.makeApiClient(CustomObjectsApi);
  const probe = { apiVersion: 'lifecycle.k8s.io/v1alpha1', kind: 'EvictionRequest', metadata: { name: 'probe' }, spec: { target: { pod: { name: 'probe', uid: '00000000-0000-0000-0000-000000000000' } }, requester: 'test.kube-tidy.dev/probe', intent: 'Eviction' } };
  await waitFor('the EvictionRequest webhook to be called', async () => {
    await custom.createNamespacedCustomObject({ group: 'lifecycle.k8s.io', version: 'v1alpha1', plural: 'evictionrequests', namespace: ns, body: probe, dryRun: 'All' }).catch(() => {});
    return calls > 0;
  });
  return h;
}
