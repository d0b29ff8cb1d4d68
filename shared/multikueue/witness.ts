// kube-tidy's witness record in each worker: the uids of batch Jobs it has seen carrying
// our origin label. After a Job is deleted without propagation its pods lose their owner
// reference, and nothing on them says "MultiKueue copy" any more; the Job-controller labels
// only name a uid. The record is what turns that uid back into proof. It lives in the
// worker (a ConfigMap in the Kueue namespace), not in a process, so any instance can use it.
import { classifyKubeError, toKubeError } from '../kube/index.js';
import type { ApiClients } from './client.js';

export const WITNESS_CONFIGMAP = 'kube-tidy-multikueue-witness';

export interface Witness {
  /** uid -> "namespace/name", for our origin only. */
  uids: Map<string, string>;
  /** Every entry (other origins too), to write back unchanged. */
  raw: Record<string, string>;
  resourceVersion?: string;
}

export async function readWitness(api: ApiClients, namespace: string, origin: string): Promise<Witness> {
  try {
    const cm = await api.core.readNamespacedConfigMap({ namespace, name: WITNESS_CONFIGMAP });
    const raw = cm.data ?? {};
    const uids = new Map<string, string>();
    for (const [uid, value] of Object.entries(raw)) {
      const [o, job] = value.split(' ');
      if (o === origin && job) uids.set(uid, job);
    }
    return { uids, raw, resourceVersion: cm.metadata?.resourceVersion };
  } catch (e) {
    if (classifyKubeError(e).kind === 'not-found') return { uids: new Map(), raw: {} };
    throw toKubeError(e, `read ConfigMap ${namespace}/${WITNESS_CONFIGMAP}`);
  }
}

/**
 * Writes the changes with the resourceVersion read (another sweep's write in between is a
 * conflict: answered 'conflict', and the next sweep simply records again). Returns how many
 * requests it made (0 when there is nothing to change).
 */
export async function updateWitness(api: ApiClients, namespace: string, origin: string, w: Witness, change: { add: Map<string, string>; drop: string[] }, dryRun: boolean): Promise<{ outcome: 'unchanged' | 'written' | 'conflict'; requests: number }> {
  const mine = (uid: string) => w.raw[uid]?.startsWith(`${origin} `);
  const drop = change.drop.filter(mine);
  if (change.add.size === 0 && drop.length === 0) return { outcome: 'unchanged', requests: 0 };
  const data = { ...w.raw };
  for (const uid of drop) delete data[uid];
  for (const [uid, job] of change.add) data[uid] = `${origin} ${job}`;
  const body = { metadata: { name: WITNESS_CONFIGMAP, namespace, resourceVersion: w.resourceVersion }, data };
  const dry = dryRun ? { dryRun: 'All' } : {};
  try {
    if (w.resourceVersion) await api.core.replaceNamespacedConfigMap({ namespace, name: WITNESS_CONFIGMAP, body, ...dry });
    else await api.core.createNamespacedConfigMap({ namespace, body, ...dry });
    return { outcome: 'written', requests: 1 };
  } catch (e) {
    const kind = classifyKubeError(e).kind;
    if (kind === 'conflict') return { outcome: 'conflict', requests: 1 };
    throw toKubeError(e, `write ConfigMap ${namespace}/${WITNESS_CONFIGMAP}`);
  }
}
