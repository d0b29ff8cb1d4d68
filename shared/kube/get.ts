// Read one pod by name: Knative's Reference-mode events carry only a name, never the object.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { Pod } from '../model/kube.js';
import { classifyKubeError, toKubeError } from './errors.js';
import { toPod } from './model.js';

export type PodReader = Pick<CoreV1Api, 'readNamespacedPod'>;

/** The pod, or undefined when there is none of that name (already cleaned, or never was). */
export async function getPod(core: PodReader, ref: { namespace: string; name: string }): Promise<Pod | undefined> {
  try {
    return toPod(await core.readNamespacedPod({ name: ref.name, namespace: ref.namespace }));
  } catch (error) {
    if (classifyKubeError(error).kind === 'not-found') return undefined;
    throw toKubeError(error, `get pod ${ref.namespace}/${ref.name}`);
  }
}
