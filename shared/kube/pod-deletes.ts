// The hot DELETE of a pod, sent directly (direct.ts) rather than through client-node's
// CoreV1Api: the same request (path, query, DeleteOptions body) and the same answers to the
// writer (pods.ts deletePod), without decoding the pod the API server answers with.
import type { V1DeleteOptions } from '@kubernetes/client-node';
import type { DirectRequests } from './direct.js';
import type { PodDeleter } from './pods.js';

export class DirectPodDeletes implements PodDeleter {
  constructor(private readonly direct: DirectRequests) {}

  async deleteNamespacedPod({ name, namespace, body, dryRun }: { name: string; namespace: string; body: V1DeleteOptions; dryRun?: string }): Promise<number> {
    // Encoded as client-node encodes path parameters; the lifecycle's path guard refuses what encoding lets through ('..').
    const query = dryRun ? `?dryRun=${encodeURIComponent(dryRun)}` : '';
    return this.direct.send('DELETE', `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}${query}`, body);
  }
}
