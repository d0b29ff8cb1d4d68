// The slots of evacuations in flight: one ConfigMap per cluster (data: pod uid -> slot). It is
// only written with the resourceVersion it was read at, so the API server serialises every
// change and two instances cannot both take the last slot: the loser gets 409 and re-reads.
import type { CoreV1Api, V1ConfigMap } from '@kubernetes/client-node';
import { classifyKubeError, toKubeError, TransientKubeError } from '../kube/index.js';
import { admit, type Admission, type Limits, type Slot } from './limits.js';

export const LEDGER_NAME = 'kube-tidy-evacuations';
const ROUNDS = 10;

type Core = Pick<CoreV1Api, 'readNamespacedConfigMap' | 'createNamespacedConfigMap' | 'replaceNamespacedConfigMap'>;

function slotsOf(cm: V1ConfigMap | undefined): Slot[] {
  return Object.entries(cm?.data ?? {}).flatMap(([uid, v]) => {
    try {
      const s = JSON.parse(v) as Omit<Slot, 'uid'>;
      return [{ uid, pod: String(s.pod), node: String(s.node), at: Number(s.at) || 0 }];
    } catch {
      return []; // a hand-edited entry holds no slot
    }
  });
}

async function read(core: Core, namespace: string): Promise<V1ConfigMap | undefined> {
  try {
    return await core.readNamespacedConfigMap({ namespace, name: LEDGER_NAME });
  } catch (e) {
    if (classifyKubeError(e).kind === 'not-found') return undefined;
    throw toKubeError(e, `read ${namespace}/${LEDGER_NAME}`);
  }
}

/** Write `data` if the ledger is still what was read; false on a conflict (read again). */
async function write(core: Core, namespace: string, seen: V1ConfigMap | undefined, data: Record<string, string>): Promise<boolean> {
  try {
    if (!seen) await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: LEDGER_NAME, namespace }, data } });
    else await core.replaceNamespacedConfigMap({ namespace, name: LEDGER_NAME, body: { metadata: { name: LEDGER_NAME, namespace, resourceVersion: seen.metadata?.resourceVersion }, data } });
    return true;
  } catch (e) {
    if (classifyKubeError(e).kind === 'conflict') return false;
    throw toKubeError(e, `write ${namespace}/${LEDGER_NAME}`);
  }
}

export async function listSlots(core: Core, namespace: string): Promise<Slot[]> {
  return slotsOf(await read(core, namespace));
}

/** Take a slot for the pod within the limits (idempotent: a slot it holds is kept). */
export async function acquire(core: Core, namespace: string, slot: Slot, limits: Limits): Promise<Admission> {
  for (let i = 0; i < ROUNDS; i++) {
    const cm = await read(core, namespace);
    const verdict = admit(slotsOf(cm), slot.uid, slot.node, limits);
    if (!verdict.ok || verdict.held) return verdict;
    const { uid, ...value } = slot;
    if (await write(core, namespace, cm, { ...cm?.data, [uid]: JSON.stringify(value) })) return verdict;
  }
  throw new TransientKubeError(`${namespace}/${LEDGER_NAME}: still contended after ${ROUNDS} rounds`, { kind: 'conflict', message: 'ledger contended', causes: [] });
}

/** Give back the slots `which` picks (none held is fine): one read, one write. */
export async function release(core: Core, namespace: string, which: (slot: Slot) => boolean): Promise<void> {
  for (let i = 0; i < ROUNDS; i++) {
    const cm = await read(core, namespace);
    const freed = slotsOf(cm).filter(which);
    if (freed.length === 0) return;
    const data = { ...cm?.data };
    for (const s of freed) delete data[s.uid];
    if (await write(core, namespace, cm, data)) return;
  }
  throw new TransientKubeError(`${namespace}/${LEDGER_NAME}: still contended after ${ROUNDS} rounds`, { kind: 'conflict', message: 'ledger contended', causes: [] });
}
