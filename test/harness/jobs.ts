// A Job that finishes on the test control plane: kwok's stage (kwok-stages.yaml) ends its pod
// with the exit code the template's annotation names, and the real Job controller then writes
// Complete (0) or Failed. Returns once the condition is stored.
import type { BatchV1Api, V1Job, V1OwnerReference } from '@kubernetes/client-node';
import { EXIT_CODE_ANNOTATION } from './kwok-annotations.js';
import { waitFor } from './wait.js';

export interface FinishedJobOptions {
  labels?: Record<string, string>;
  /** 0: Complete; anything else: Failed (with backoffLimit 0). */
  exitCode?: number;
  ttlSecondsAfterFinished?: number;
  ownerReferences?: V1OwnerReference[];
  /** Do not wait for the condition (the caller watches for it). */
  noWait?: boolean;
}

export async function finishedJob(batch: BatchV1Api, namespace: string, name: string, o: FinishedJobOptions = {}): Promise<V1Job> {
  const code = o.exitCode ?? 0;
  await batch.createNamespacedJob({
    namespace,
    body: {
      metadata: { name, ...(o.labels ? { labels: o.labels } : {}), ...(o.ownerReferences ? { ownerReferences: o.ownerReferences } : {}) },
      spec: {
        backoffLimit: 0,
        ...(o.ttlSecondsAfterFinished !== undefined ? { ttlSecondsAfterFinished: o.ttlSecondsAfterFinished } : {}),
        template: {
          metadata: { annotations: { [EXIT_CODE_ANNOTATION]: String(code) } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
        },
      },
    },
  });
  if (o.noWait) return batch.readNamespacedJob({ namespace, name });
  const want = code === 0 ? 'Complete' : 'Failed';
  return waitFor(
    `Job ${namespace}/${name} ${want}`,
    async () => {
      const j = await batch.readNamespacedJob({ namespace, name });
      return j.status?.conditions?.some((c) => c.type === want && c.status === 'True') ? j : undefined;
    },
    { timeoutMs: 90_000 },
  );
}

/** Whether the Job is stored (404: gone). */
export async function jobExists(batch: BatchV1Api, namespace: string, name: string): Promise<boolean> {
  return batch.readNamespacedJob({ namespace, name }).then(
    () => true,
    (e: { code?: number }) => {
      if (e?.code === 404) return false;
      throw e;
    },
  );
}
