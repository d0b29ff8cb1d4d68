// Read one pod by name: Knative's Reference-mode events carry only a name, never the object.
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { classifyKubeError, toKubeError } from './errors.js';

export type PodReader = Pick<CoreV1Api, 'readNamespacedPod'>;

/** The pod, or undefined when there is none of that name (already cleaned, or never was). */
export async function getPod(core: PodReader, ref: { namespace: string; name: string }): Promise<V1Pod | undefined> {
  try {
    return await core.readNamespacedPod({ name: ref.name, namespace: ref.namespace });
  } catch (error) {
    if (classifyKubeError(error).kind === 'not-found') return undefined;
    throw toKubeError(error, `get pod ${ref.namespace}/${ref.name}`);
  }
}
