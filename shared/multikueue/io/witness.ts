// The witness record's I/O (the rules are core/witness.ts): it lives in the worker (a
// ConfigMap in the Kueue namespace), not in a process, so any instance can use it. Written
// through the worker's ClusterWriter with the resourceVersion read: another sweep's write in
// between is a conflict, answered 'conflict', and the next sweep simply records again.
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { KubeClients } from '../../kube/clients.js';
import { readOrAbsent } from '../../kube/read.js';
import type { ClusterWriter } from '../../kube/writer.js';
import { changedWitness, witnessedUids } from '../core/witness.js';
import { WITNESS_CONFIGMAP } from '../../model/keys.js';

export { WITNESS_CONFIGMAP };

export interface Witness {
  /** uid -> "namespace/name", for our origin only. */
  uids: Map<string, string>;
  /** Every entry (other origins too), to write back unchanged. */
  raw: Record<string, string>;
  /** The ConfigMap as read (its resourceVersion is the write's precondition); absent: none yet. */
  seen?: V1ConfigMap;
}

export async function readWitness(api: Pick<KubeClients, 'core'>, namespace: string, origin: string): Promise<Witness> {
  const cm = await readOrAbsent(`read ConfigMap ${namespace}/${WITNESS_CONFIGMAP}`, () =>
    api.core.readNamespacedConfigMap({ namespace, name: WITNESS_CONFIGMAP }),
  );
  const raw = cm?.data ?? {};
  return { uids: witnessedUids(raw, origin), raw, ...(cm ? { seen: cm } : {}) };
}

/** Writes the changes, if any (nothing is sent when there is nothing to change). */
export async function updateWitness(
  writer: ClusterWriter,
  namespace: string,
  origin: string,
  w: Witness,
  change: { add: Map<string, string>; drop: string[] },
): Promise<{ outcome: 'unchanged' | 'written' | 'conflict' }> {
  const data = changedWitness(w.raw, origin, change);
  if (!data) return { outcome: 'unchanged' };
  const written = await writer.writeConfigMap(namespace, WITNESS_CONFIGMAP, w.seen, data);
  return { outcome: written ? 'written' : 'conflict' };
}
