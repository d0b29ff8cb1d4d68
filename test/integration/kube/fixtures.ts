// Pods for the kube/ tests: created for real, run by kwok on its fake nodes, and read back
// through the plain client so the code under test never checks its own work.
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { EXIT_CODE_ANNOTATION, waitFor } from '../../harness/index.js';

// Never pulled: kwok plays the kubelet.
const IMAGE = 'registry.k8s.io/pause:3.10';

export interface Made {
  name: string;
  uid: string;
}

export function manifest(name: string, labels: Record<string, string> = {}, exitCode?: number): V1Pod {
  const annotations: Record<string, string> = exitCode === undefined ? {} : { [EXIT_CODE_ANNOTATION]: String(exitCode) };
  return {
    metadata: { name, labels, annotations },
    spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: IMAGE }], terminationGracePeriodSeconds: 1 },
  };
}

/** Create a pod and wait until kwok reports the phase (Running, or Succeeded/Failed with an exit code). */
export async function makePod(
  core: CoreV1Api,
  namespace: string,
  name: string,
  { labels = {}, exitCode, phase = 'Running' }: { labels?: Record<string, string>; exitCode?: number; phase?: string } = {},
): Promise<Made> {
  const created = await core.createNamespacedPod({ namespace, body: manifest(name, labels, exitCode) });
  await waitFor(`pod ${namespace}/${name} ${phase}`, async () => (await core.readNamespacedPod({ name, namespace })).status?.phase === phase);
  return { name, uid: created.metadata?.uid ?? '' };
}

/** The uid of the live (not terminating) pod of that name, or undefined. */
export async function liveUid(core: CoreV1Api, namespace: string, name: string): Promise<string | undefined> {
  const pod = await core.readNamespacedPod({ name, namespace }).catch(() => undefined);
  return pod && !pod.metadata?.deletionTimestamp ? pod.metadata?.uid : undefined;
}

/** Wait until the pod with this uid no longer exists (kwok confirms graceful deletion). */
export async function waitGone(core: CoreV1Api, namespace: string, made: Made): Promise<void> {
  await waitFor(`pod ${namespace}/${made.name} (${made.uid}) gone`, async () => {
    const pod = await core.readNamespacedPod({ name: made.name, namespace }).catch(() => undefined);
    return pod?.metadata?.uid !== made.uid;
  });
}

/** Delete a pod and create another under the same name: the shape of a stale event. */
export async function recreate(core: CoreV1Api, namespace: string, old: Made, labels: Record<string, string> = {}): Promise<Made> {
  await core.deleteNamespacedPod({ name: old.name, namespace, gracePeriodSeconds: 0 });
  await waitGone(core, namespace, old);
  return makePod(core, namespace, old.name, { labels });
}
