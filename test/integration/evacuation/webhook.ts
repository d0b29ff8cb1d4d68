// A real validating admission webhook for pods/eviction, answering as KubeVirt's virt-api
// does for launcher pods: the eviction is denied with 429 and the VMI is marked for
// evacuation (status.evacuationNodeName, written with its resourceVersion so two concurrent
// evictions mark it once), and a migration is created as virt-controller would. HTTPS with a
// certificate made by openssl; the API server trusts it through caBundle.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdmissionregistrationV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';

const KV = { group: 'kubevirt.io', version: 'v1' } as const;

export interface Webhook {
  /** Evictions the webhook answered, in order: [pod, message]. */
  answers: [string, string][];
  /** Admission requests received (a probe eviction shows the registration is live). */
  calls: number;
  /** While set, an eviction that would create a migration waits for it first: 'fail' answers
   *  500 without creating one (the eviction never reached KubeVirt). */
  holdBefore?: (pod: string) => Promise<'go' | 'fail'>;
  /** While set, the answer to an eviction that created a migration waits for it. */
  holdAfter?: (pod: string) => Promise<void>;
  stop(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 (the API server trusts it through caBundle). */
export function certificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-webhook-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Vmi = { metadata: { name: string; resourceVersion: string }; status?: Record<string, unknown> };

async function evacuate(core: CoreV1Api, custom: CustomObjectsApi, ns: string, podName: string, wh: Webhook): Promise<string | undefined> {
  const pod = await core.readNamespacedPod({ namespace: ns, name: podName });
  const owner = pod.metadata?.ownerReferences?.find((o) => o.kind === 'VirtualMachineInstance');
  if (pod.metadata?.labels?.['kubevirt.io'] !== 'virt-launcher' || !owner) return undefined; // not a VM: allow
  const vmi = (await custom.getNamespacedCustomObject({ ...KV, plural: 'virtualmachineinstances', namespace: ns, name: owner.name })) as Vmi;
  const ref = `"${ns}/${owner.name}"`;
  if (vmi.status?.evacuationNodeName) return `Evacuation in progress: VMI ${ref} is being evacuated`;
  if (wh.holdBefore && (await wh.holdBefore(podName)) === 'fail') throw new Error('held and failed before any migration');
  try {
    await custom.replaceNamespacedCustomObjectStatus({
      ...KV,
      plural: 'virtualmachineinstances',
      namespace: ns,
      name: owner.name,
      body: { ...vmi, status: { ...vmi.status, evacuationNodeName: pod.spec?.nodeName ?? 'unknown' } },
    });
  } catch {
    return `Evacuation in progress: VMI ${ref} is being evacuated`; // another eviction marked it first
  }
  await custom.createNamespacedCustomObject({
    ...KV,
    plural: 'virtualmachineinstancemigrations',
    namespace: ns,
    body: {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstanceMigration',
      metadata: { generateName: 'kubevirt-evacuation-', labels: { 'kubevirt.io/evacuation': owner.name } },
      spec: { vmiName: owner.name },
    },
  });
  if (wh.holdAfter) await wh.holdAfter(podName);
  return `Eviction triggered evacuation of VMI ${ref}`;
}

/** What the API server asks a validating webhook (the fields these tests read). */
export interface AdmissionRequest {
  uid: string;
  name: string;
  namespace: string;
  dryRun?: boolean;
}

/**
 * A validating webhook served over HTTPS on 127.0.0.1 and registered for CREATE of `resource`
 * in `ns` only (the cluster is shared with other test files): `answer` gives each response.
 */
export async function validatingWebhook(
  kc: KubeConfig,
  ns: string,
  o: { name: string; webhook: string; path: string; group: string; version: string; resource: string; timeoutSeconds: number },
  answer: (request: AdmissionRequest) => Promise<Record<string, unknown>>,
): Promise<{ stop(): Promise<void> }> {
  const { key, cert } = certificate();
  const server: Server = createServer({ key, cert }, (req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += String(c)));
    req.on('end', async () => {
      const response = await answer((JSON.parse(raw) as { request: AdmissionRequest }).request);
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const admission = kc.makeApiClient(AdmissionregistrationV1Api);
  await admission.createValidatingWebhookConfiguration({
    body: {
      metadata: { name: o.name },
      webhooks: [
        {
          name: o.webhook,
          clientConfig: { url: `https://127.0.0.1:${port}${o.path}`, caBundle: Buffer.from(cert).toString('base64') },
          rules: [{ operations: ['CREATE'], apiGroups: [o.group], apiVersions: [o.version], resources: [o.resource], scope: 'Namespaced' }],
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
          // Dry-run requests change nothing in these webhooks (they only count or answer them).
          sideEffects: 'NoneOnDryRun',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
          timeoutSeconds: o.timeoutSeconds,
        },
      ],
    },
  });
  return {
    stop: async () => {
      await admission.deleteValidatingWebhookConfiguration({ name: o.name }).catch(() => {});
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Serves the webhook and registers it for pods/eviction CREATE in `ns` only. */
export async function startWebhook(kc: KubeConfig, ns: string): Promise<Webhook> {
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const wh: Webhook = { answers: [], calls: 0, stop: async () => {} };
  const registration = {
    name: `kube-tidy-test-evacuation-${ns}`,
    webhook: 'evacuation.test.kube-tidy.dev',
    path: '/eviction',
    group: '',
    version: 'v1',
    resource: 'pods/eviction',
    timeoutSeconds: 15,
  };
  const { stop } = await validatingWebhook(kc, ns, registration, async ({ uid, name, namespace, dryRun }) => {
    wh.calls++;
    try {
      // Registered NoneOnDryRun: a dry-run eviction (the readiness probe) changes nothing.
      if (dryRun) return { uid, allowed: true };
      const message = await evacuate(core, custom, namespace, name, wh);
      if (!message) return { uid, allowed: true };
      wh.answers.push([name, message]);
      return { uid, allowed: false, status: { code: 429, reason: 'TooManyRequests', message } };
    } catch (e) {
      return { uid, allowed: false, status: { code: 500, message: `test webhook: ${(e as Error).message}` } };
    }
  });
  wh.stop = stop;
  return wh;
}
