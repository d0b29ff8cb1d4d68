// An object an event names only by reference (Knative Reference mode: no uid, no copy): its
// stored uid, so the event path can restrict its pass to it. Undefined when it is not there.
import { classifyKubeError } from '../../kube/errors.js';
import type { ObjectKind } from '../../policy/objects-schema.js';
import { WORKLOADS, type ObjectsReader } from './read.js';

export async function storedUid(r: ObjectsReader, kind: ObjectKind, at: { namespace: string; name: string }): Promise<string | undefined> {
  const read: () => Promise<{ metadata?: { uid?: string } }> =
    kind === 'Job'
      ? () => r.batch.readNamespacedJob(at)
      : kind === 'PersistentVolumeClaim'
        ? () => r.core.readNamespacedPersistentVolumeClaim(at)
        : () => r.custom.getNamespacedCustomObject({ ...WORKLOADS, ...at }) as Promise<{ metadata?: { uid?: string } }>;
  try {
    return (await read()).metadata?.uid;
  } catch (e) {
    if (classifyKubeError(e).kind === 'not-found') return undefined;
    throw e;
  }
}
