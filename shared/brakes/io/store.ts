// Where the ledger lives: one ConfigMap, `kube-tidy-brakes` in kube-tidy's namespace, its state
// as JSON under one key (ConfigMap keys cannot hold a counter's `|`): the brakes' counts, holds
// and trips, and evacuation's slots (evacuation/io/slot-store.ts writes those through this
// store). Written only at the resourceVersion it was read at, through the writer, so the API
// server serialises every change: two instances never both take the last unit, the loser
// re-reads (409). A ConfigMap
// rather than a Lease: the state is a small document, and a Lease's spec has no place for it.
// Read and written through the one ConfigMap store (kube/configmap-store.ts).
import type { V1ConfigMap } from '@kubernetes/client-node';
import { z } from 'zod';
import { ConfigMapStore, dataOf, jsonDocument, readStored, type ConfigMapReader, type Seen } from '../../kube/configmap-store.js';
import type { ClusterWriter } from '../../kube/writer.js';
import { emptyLedger, type LedgerState } from '../core/ledger.js';
import { BRAKES_NAME } from '../../model/keys.js';
import { BRAKE_SCOPES } from '../../policy/brakes-schema.js';

export { BRAKES_NAME };
/** The one key the ledger's JSON is under (and whose writer lost.ts checks). */
export const LEDGER_KEY = 'ledger.json';

export type Reader = ConfigMapReader;

// Strict, field by field: a ledger that fails it is unreadable, never read as an empty one
// (a truncated document would otherwise reset every budget and trip). What then: brakes.ts.
const unit = z.number().int().nonnegative();
const ledgerSchema = z.object({
  counts: z.record(z.string(), unit),
  holds: z.record(z.string(), z.object({ until: z.number(), grants: z.record(z.string(), unit) })),
  trips: z.record(
    z.string(),
    z.object({
      scope: z.enum(BRAKE_SCOPES),
      key: z.string(),
      percent: z.number(),
      at: z.number(),
      pass: z.string(),
      selected: z.number(),
      considered: z.number(),
    }),
  ),
  blind: z.object({ at: z.number(), why: z.string(), trips: z.boolean(), excerpt: z.string().optional() }).optional(),
  // Evacuation's slots (core/slots.ts); optional: a ledger written before they moved here has none.
  slots: z
    .record(
      z.string(),
      z.object({ pod: z.string(), node: z.string(), at: z.number(), unreadable: z.string().optional(), attempt: z.number().int().positive().optional() }),
    )
    .optional(),
  slotsMended: z.number().optional(),
}) as unknown as z.ZodType<LedgerState>;
const codec = jsonDocument(LEDGER_KEY, ledgerSchema, emptyLedger);

/** The ledger a ConfigMap holds, or undefined when it cannot be read as one. */
export const stateOf = (cm: V1ConfigMap | undefined): LedgerState | undefined => {
  const got = codec.decode(dataOf(cm));
  return got.unreadable.length ? undefined : got.value;
};

/**
 * The ledger's store: written only if still as read (false when someone wrote first, or
 * deleted it since). A missing namespace is created once (a function started with nothing but
 * a policy and a kubeconfig still has its brakes); if it cannot be, the error says so and
 * nothing is removed.
 */
export const ledgerStore = (core: Reader, writer: ClusterWriter, namespace: string): ConfigMapStore<LedgerState> =>
  new ConfigMapStore(core, writer, { namespace, name: BRAKES_NAME, codec, createNamespaceFor: "the brakes' ledger" });

/** The ledger as stored, read without a writer (a look at what it holds: evacuation's slots in tests and tools). */
export const readLedger = (core: Reader, namespace: string): Promise<Seen<LedgerState>> => readStored(core, { namespace, name: BRAKES_NAME, codec });
