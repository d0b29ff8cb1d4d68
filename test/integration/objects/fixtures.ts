// What the objects tests make on a real control plane: a claim bound to a volume made for it
// (kube-controller-manager of v1.37.2 writes the claim's Unused condition only on a Bound
// claim: a hostPath volume pre-bound by claimRef, storageClassName "manual"), a Job that kwok's
// stage ends with exit code 0 (the Job controller then writes Complete), and waits on both.
import type { BatchV1Api, CoreV1Api, V1Job, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { finishedJob as harnessFinishedJob, waitFor } from '../../harness/index.js';

export const PAUSE = 'registry.k8s.io/pause:3.10';

/** The volumes a file made (cluster-scoped: deleted in its afterAll, the namespace does not take them). */
export class Volumes {
  readonly names: string[] = [];
  constructor(private readonly core: () => CoreV1Api) {}

  /** A hostPath volume pre-bound to `namespace/claim` (named `name`, or after the claim). */
  async forClaim(
    namespace: string,
    claim: string,
    reclaim: 'Delete' | 'Retain' = 'Delete',
    name = `${namespace}-${claim}-${Math.random().toString(36).slice(2, 6)}`,
  ): Promise<string> {
    this.names.push(name);
    await this.core().createPersistentVolume({
      body: {
        metadata: { name },
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'manual',
          persistentVolumeReclaimPolicy: reclaim,
          hostPath: { path: `/tmp/${name}` },
          claimRef: { namespace, name: claim },
        },
      },
    });
    return name;
  }

  async removeAll(): Promise<void> {
    for (const name of this.names)
      await this.core()
        .deletePersistentVolume({ name })
        .catch(() => undefined);
  }
}

const claimSpec = (volumeName?: string) => ({
  accessModes: ['ReadWriteOnce'],
  resources: { requests: { storage: '1Gi' } },
  storageClassName: 'manual',
  ...(volumeName ? { volumeName } : {}),
});

/** A claim's Unused condition as the API server stores it now. */
export async function unusedOf(core: CoreV1Api, namespace: string, name: string) {
  const c = await core.readNamespacedPersistentVolumeClaim({ namespace, name });
  return { claim: c, unused: c.status?.conditions?.find((x) => x.type === 'Unused') };
}

/** Waits until kube-controller-manager has written the claim's Unused condition with `status`. */
export const unusedIs = (core: CoreV1Api, namespace: string, name: string, status: 'True' | 'False'): Promise<V1PersistentVolumeClaim> =>
  waitFor(
    `${namespace}/${name} Unused=${status}`,
    async () => {
      const { claim, unused } = await unusedOf(core, namespace, name);
      return unused?.status === status ? claim : undefined;
    },
    { timeoutMs: 60_000 },
  );

/** A claim bound to a volume made for it, once kube-controller-manager says it is Unused. */
export async function boundClaim(
  core: CoreV1Api,
  volumes: Volumes,
  namespace: string,
  name: string,
  reclaim: 'Delete' | 'Retain' = 'Delete',
): Promise<V1PersistentVolumeClaim> {
  const volume = await volumes.forClaim(namespace, name, reclaim);
  await core.createNamespacedPersistentVolumeClaim({ namespace, body: { metadata: { name }, spec: claimSpec(volume) } });
  return unusedIs(core, namespace, name, 'True');
}

/** The claim template a StatefulSet's volumeClaimTemplates carry (bound by the volumes made for its claims). */
export const claimTemplate = (name: string) => ({ metadata: { name }, spec: claimSpec() });

/** The claim's uid, or undefined once it is gone; a claim being deleted counts as gone. */
export const liveClaim = (core: CoreV1Api, namespace: string, name: string): Promise<string | undefined> =>
  core.readNamespacedPersistentVolumeClaim({ namespace, name }).then(
    (c) => (c.metadata?.deletionTimestamp ? undefined : c.metadata?.uid),
    () => undefined,
  );

/** A Job whose one pod kwok ends with exit code 0; resolves once the Job controller wrote Complete (the harness's). */
export const finishedJob = (batch: BatchV1Api, namespace: string, name: string, labels: Record<string, string> = {}): Promise<V1Job> =>
  harnessFinishedJob(batch, namespace, name, { labels });

/** The Job's uid, or undefined once it is gone or being deleted. */
export const liveJob = (batch: BatchV1Api, namespace: string, name: string): Promise<string | undefined> =>
  batch.readNamespacedJob({ namespace, name }).then(
    (j) => (j.metadata?.deletionTimestamp ? undefined : j.metadata?.uid),
    () => undefined,
  );
