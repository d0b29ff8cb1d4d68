// The slots of evacuations in flight: one ConfigMap per cluster (data: pod uid -> slot), the
// rules in core/limits.ts. It is only written with the resourceVersion it was read at
// (through the ClusterWriter), so the API server serialises every change and two instances
// cannot both take the last slot: the loser gets 409 and re-reads.
//
// In a dry run nothing is stored, so a Ledger (one per request) also keeps the slots it would
// have taken and given back: the next pod of the same tick is admitted against them, and a
// dry-run answer says what a real tick would do within the limits.
import type { CoreV1Api, V1ConfigMap } from '@kubernetes/client-node';
import { TransientKubeError } from '../../kube/errors.js';
import { readOrAbsent } from '../../kube/read.js';
import type { ClusterWriter } from '../../kube/writer.js';
import { admit, type Admission, type Limits, type Slot } from '../core/limits.js';

export const LEDGER_NAME = 'kube-tidy-evacuations';
const ROUNDS = 10;

type Reader = Pick<CoreV1Api, 'readNamespacedConfigMap'>;

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

const read = (core: Reader, namespace: string) =>
  readOrAbsent(`read ${namespace}/${LEDGER_NAME}`, () => core.readNamespacedConfigMap({ namespace, name: LEDGER_NAME }));

const contended = (namespace: string) =>
  new TransientKubeError(`${namespace}/${LEDGER_NAME}: still contended after ${ROUNDS} rounds`, { kind: 'conflict', message: 'ledger contended', causes: [] });

/** The slots as stored; no writer needed (tests, the tick's look at what is held). */
export async function listSlots(core: Reader, namespace: string): Promise<Slot[]> {
  return slotsOf(await read(core, namespace));
}

export class Ledger {
  /** A dry run's own changes, which the API server did not keep. */
  private readonly taken = new Map<string, Slot>();
  private readonly freed = new Set<string>();

  constructor(
    private readonly core: Reader,
    private readonly writer: ClusterWriter,
    readonly namespace: string,
  ) {}

  private async current(): Promise<{ cm: V1ConfigMap | undefined; slots: Slot[] }> {
    const cm = await read(this.core, this.namespace);
    const slots = slotsOf(cm).filter((s) => !this.freed.has(s.uid) && !this.taken.has(s.uid));
    return { cm, slots: [...slots, ...this.taken.values()] };
  }

  async slots(): Promise<Slot[]> {
    return (await this.current()).slots;
  }

  /** Take a slot for the pod within the limits (idempotent: a slot it holds is kept). */
  async acquire(slot: Slot, limits: Limits): Promise<Admission> {
    for (let i = 0; i < ROUNDS; i++) {
      const { cm, slots } = await this.current();
      const verdict = admit(slots, slot.uid, slot.node, limits);
      if (!verdict.ok || verdict.held) return verdict;
      const { uid, ...value } = slot;
      if (await this.writer.writeConfigMap(this.namespace, LEDGER_NAME, cm, { ...cm?.data, [uid]: JSON.stringify(value) })) {
        if (this.writer.dryRun) {
          this.taken.set(uid, slot);
          this.freed.delete(uid);
        }
        return verdict;
      }
    }
    throw contended(this.namespace);
  }

  /** Give back the slots `which` picks (none held is fine): one read, one write. */
  async release(which: (slot: Slot) => boolean): Promise<void> {
    for (let i = 0; i < ROUNDS; i++) {
      const { cm, slots } = await this.current();
      const freed = slots.filter(which);
      if (freed.length === 0) return;
      const data = { ...cm?.data };
      for (const s of freed) delete data[s.uid];
      if (await this.writer.writeConfigMap(this.namespace, LEDGER_NAME, cm, data)) {
        if (this.writer.dryRun) {
          for (const s of freed) {
            this.taken.delete(s.uid);
            this.freed.add(s.uid);
          }
        }
        return;
      }
    }
    throw contended(this.namespace);
  }
}
