// What a kubelet stand-in does for one pod, shared by the stand-ins that run a pod's command as
// a local process (test/integration/helm/kubelet-stand-in.ts for `helm test`,
// descheduler-kubelet.ts for the descheduler's Deployment): the pod's ServiceAccount token as
// a kubeconfig, and its status written through the status subresource, as the kubelet writes it.
import { join } from 'node:path';
import type { CoreV1Api, KubeConfig, V1Pod } from '@kubernetes/client-node';
import { writeKubeconfig } from './credentials.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `write` (a read and a replace) again while the API server answers 409, up to 10 times. */
export async function onConflictAgain(write: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (e) {
      if ((e as { code?: number }).code !== 409 || attempt >= 10) throw e;
      await sleep(100);
    }
  }
}

/**
 * The token the kubelet mounts for the pod's ServiceAccount (a TokenRequest bound to the pod,
 * https://kubernetes.io/docs/concepts/security/service-accounts/#bound-service-account-tokens),
 * handed over as a kubeconfig file in `dir`: the pod's own RBAC decides what it may do.
 */
export async function podKubeconfig(core: CoreV1Api, kc: KubeConfig, pod: V1Pod, dir: string): Promise<string> {
  const { name, namespace, uid } = pod.metadata as { name: string; namespace: string; uid: string };
  const account = pod.spec?.serviceAccountName ?? 'default';
  const token = await core.createNamespacedServiceAccountToken({
    name: account,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name, uid } } },
  });
  const cluster = kc.getCurrentCluster()!;
  const ca = Buffer.from(cluster.caData ?? '', 'base64').toString('utf8');
  return writeKubeconfig(join(dir, `${uid}.kubeconfig`), account, cluster.server, ca, token.status!.token);
}

/** Writes `status` over the pod's current status (status subresource), if the pod is still the same one. */
export async function setPodStatus(core: CoreV1Api, pod: V1Pod, status: V1Pod['status']): Promise<void> {
  const { name, namespace } = pod.metadata as { name: string; namespace: string };
  await onConflictAgain(async () => {
    const current = await core.readNamespacedPod({ name, namespace }).catch(() => undefined);
    if (!current || current.metadata?.uid !== pod.metadata?.uid) return;
    current.status = { ...current.status, ...status };
    await core.replaceNamespacedPodStatus({ name, namespace, body: current });
  });
}

/**
 * Registers `node` and reports it Ready with room for pods, as a kubelet does (`who` goes in
 * the Ready condition's message). The node lifecycle controller taints a new Node at once, so
 * its status is read again on a conflict.
 */
export async function registerReadyNode(core: CoreV1Api, node: string, who: string): Promise<void> {
  await core.createNode({ body: { metadata: { name: node, labels: { 'kubernetes.io/hostname': node, 'kubernetes.io/os': 'linux' } } } });
  const room = { cpu: '4', memory: '8Gi', pods: '10' };
  await onConflictAgain(async () => {
    const registered = await core.readNode({ name: node });
    const now = new Date();
    registered.status = {
      capacity: room,
      allocatable: room,
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: who, lastHeartbeatTime: now, lastTransitionTime: now }],
    };
    await core.replaceNodeStatus({ name: node, body: registered });
  });
}
