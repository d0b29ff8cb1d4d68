// The slots as the previous release kept them: a ConfigMap of their own, `kube-tidy-evacuations`
// in EVACUATION_NAMESPACE, one JSON entry per pod uid ({pod, node, at, attempt?}). Read here only
// to carry them into the brakes' ledger on upgrade (slot-store.ts `carry`): an evacuation in
// flight keeps its slot across the upgrade, so no second one is admitted beyond the limits
// meanwhile. The old ConfigMap is then deleted at the resourceVersion read; a release that
// still writes it (a rolling upgrade's old instance) makes that delete stale, and the carry is
// done again. An entry the old format cannot read is carried as an unreadable slot: it held a
// slot there and holds one in the ledger, until a tick frees it or writes it again from its pod.
import { z } from 'zod';
import { jsonEntries, readStored, type ConfigMapCodec, type ConfigMapReader, type Seen } from '../../kube/configmap-store.js';
import { EVACUATION_SLOTS_NAME } from '../../model/keys.js';
import type { Slot, SlotEntry } from '../core/limits.js';

export { EVACUATION_SLOTS_NAME as LEGACY_SLOTS_NAME };

/** An entry that is not what the previous release wrote: kept as it is, held, node unknown. */
interface Kept {
  raw: string;
  why: string;
}
type Held = Map<string, SlotEntry | Kept>;

const entry = z.object({ pod: z.string(), node: z.string(), at: z.number(), attempt: z.number().int().positive().optional() });
const readable = jsonEntries(entry);

/** The old ConfigMap's data <-> the slots (pod uid -> {pod, node, at, attempt?}), unreadable entries kept as they are. */
export const legacySlotsCodec: ConfigMapCodec<Held> = {
  decode: (data) => {
    const { value, unreadable } = readable.decode(data);
    const held: Held = new Map(value);
    for (const u of unreadable) held.set(u.key, { raw: data![u.key]!, why: u.why });
    return { value: held, unreadable };
  },
  encode: (held) => Object.fromEntries([...held].map(([k, e]) => [k, 'raw' in e ? e.raw : JSON.stringify(e)])),
};

/** The old ConfigMap as it stands (absent: nothing to carry). */
export const readLegacy = (core: ConfigMapReader, namespace: string): Promise<Seen<Held>> =>
  readStored(core, { namespace, name: EVACUATION_SLOTS_NAME, codec: legacySlotsCodec });

/** Its slots as the ledger keeps them; an unreadable entry holds a slot on no known node, taken at an unknown time. */
export const legacySlots = (held: Held): Slot[] =>
  [...held].map(([uid, e]) => ('raw' in e ? { uid, pod: '', node: '', at: 0, unreadable: `carried from ${EVACUATION_SLOTS_NAME}: ${e.why}` } : { uid, ...e }));
