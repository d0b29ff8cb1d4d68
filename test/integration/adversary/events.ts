// Pod objects as events carry them: built from scratch (a pod that may not exist) or copied
// from a stored pod and then changed the way a forger or a stale cache would.
import type { V1Pod } from '@kubernetes/client-node';

export type PodJson = { apiVersion: string; kind: string; metadata: Record<string, unknown>; spec?: Record<string, unknown>; status?: Record<string, unknown> };

const terminated = (exitCode: number) => ({
  phase: exitCode === 0 ? 'Succeeded' : 'Failed',
  containerStatuses: [
    {
      name: 'main',
      image: 'registry.k8s.io/pause:3.10',
      imageID: '',
      ready: false,
      restartCount: 0,
      state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' } },
    },
  ],
});

/** A Failed pod the policy would select if it were real: tidy=yes, in `namespace`. */
export function failedPod(namespace: string | undefined, name: string, extra: Partial<PodJson['metadata']> = {}): PodJson {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      ...(namespace === undefined ? {} : { namespace }),
      uid: '6f1c2a52-2b53-4f7e-9d36-0c1d2e3f4a5b',
      resourceVersion: '1',
      creationTimestamp: '2024-01-01T00:00:00Z',
      labels: { tidy: 'yes' },
      ...extra,
    },
    spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
    status: terminated(1),
  };
}

/** The stored pod as an event would carry it (a deep copy). */
export const asEvent = (pod: V1Pod): PodJson => ({
  apiVersion: 'v1',
  kind: 'Pod',
  ...(JSON.parse(JSON.stringify(pod)) as Omit<PodJson, 'apiVersion' | 'kind'>),
});

/** The stored pod, claimed to have failed (exit 1), the rest as stored. */
export function claimedFailed(pod: V1Pod): PodJson {
  const e = asEvent(pod);
  e.status = { ...e.status, ...terminated(1) };
  return e;
}
