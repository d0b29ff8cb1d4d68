// Read one pod by name: the stored pod decides every write, whatever an event said about it.
import type { V1Pod } from '@kubernetes/client-node';
import type { Stored } from '../model/identity.js';
import type { Pod } from '../model/objects.js';
import { toPod } from './from-client.js';
import { readOrAbsent } from './read.js';

/** client-node's CoreV1Api, or the direct read (direct-pods.ts: the wire's JSON). */
export interface PodReader {
  readNamespacedPod(param: { name: string; namespace: string }): Promise<V1Pod | Pod>;
}

/** The pod, or undefined when there is none of that name (already cleaned, or never was). */
export async function getPod(core: PodReader, ref: { namespace: string; name: string }): Promise<Stored<Pod> | undefined> {
  const pod = await readOrAbsent(`get pod ${ref.namespace}/${ref.name}`, () => core.readNamespacedPod({ name: ref.name, namespace: ref.namespace }));
  return pod && toPod(pod);
}
