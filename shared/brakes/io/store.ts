// Where the ledger lives: one ConfigMap, `kube-tidy-brakes` in kube-tidy's namespace, its state
// as JSON under one key (ConfigMap keys cannot hold a counter's `|`). Written only at the
// resourceVersion it was read at, through the writer, so the API server serialises every
// change: two instances never both take the last unit, the loser re-reads (409). A ConfigMap
// rather than a Lease: the state is a small document, and a Lease's spec has no place for it.
import type { CoreV1Api, V1ConfigMap } from '@kubernetes/client-node';
import { KubeError } from '../../kube/errors.js';
import { readOrAbsent } from '../../kube/read.js';
import type { ClusterWriter } from '../../kube/writer.js';
import { emptyLedger, type LedgerState } from '../core/ledger.js';

export const BRAKES_NAME = 'kube-tidy-brakes';
const KEY = 'ledger.json';

export type Reader = Pick<CoreV1Api, 'readNamespacedConfigMap'>;

export interface Stored {
  cm: V1ConfigMap | undefined;
  state: LedgerState;
}

export function stateOf(cm: V1ConfigMap | undefined): LedgerState {
  const raw = cm?.data?.[KEY];
  if (raw === undefined) return emptyLedger();
  try {
    const s = JSON.parse(raw) as Partial<LedgerState>;
    const obj = (v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as never) : {});
    return { counts: obj(s.counts), holds: obj(s.holds), trips: obj(s.trips) };
  } catch {
    // A ledger someone mangled by hand: start counting afresh rather than stop forever, and say so in its place.
    return emptyLedger();
  }
}

export async function readLedger(core: Reader, namespace: string): Promise<Stored> {
  const cm = await readOrAbsent(`read configmap ${namespace}/${BRAKES_NAME}`, () => core.readNamespacedConfigMap({ namespace, name: BRAKES_NAME }));
  return { cm, state: stateOf(cm) };
}

/**
 * Writes `state` if the ledger is still `seen`: the new stored copy, or false when someone
 * wrote first. A missing namespace is created once (a function started with nothing but a
 * policy and a kubeconfig still has its brakes); if it cannot be, the error says so and
 * nothing is removed.
 */
export async function writeLedger(writer: ClusterWriter, namespace: string, seen: V1ConfigMap | undefined, state: LedgerState): Promise<V1ConfigMap | false> {
  const data = { [KEY]: JSON.stringify(state) };
  try {
    return await writer.writeConfigMap(namespace, BRAKES_NAME, seen, data);
  } catch (e) {
    if (!(e instanceof KubeError) || e.failure.kind !== 'not-found') throw e;
    // Deleted since it was read (by a person, a reset): as a conflict, read again and create.
    if (seen) return false;
    try {
      await writer.createNamespace(namespace);
    } catch (ce) {
      // "create namespace x: forbidden" alone does not say why kube-tidy wanted one: name the ledger (same class: 500 or 503).
      if (ce instanceof KubeError)
        throw new (ce.constructor as typeof KubeError)(
          `the brakes' ledger ${namespace}/${BRAKES_NAME}: its namespace is missing and could not be created: ${ce.message}`,
          ce.failure,
        );
      throw ce;
    }
    return writer.writeConfigMap(namespace, BRAKES_NAME, seen, data);
  }
}
