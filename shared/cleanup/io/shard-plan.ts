// The planners' record of fanned-out passes, kept in the cluster: one ConfigMap
// (`kube-tidy-sweep-plans` in kube-tidy's namespace) holding, per pass, the digest of each
// shard it posted. An instance takes a shard only when it is one of these. Re-deciding every
// pod already keeps a shard from removing anything the policy does not select; the record
// keeps the pass's order and limits (maxNoOfPodsToEvict*), which only the planner could apply
// over the whole cluster, from being exceeded by a shard that was never planned (forged by a
// sender that passed sender authentication, or changed on the way). A shard with no record,
// or another digest, is answered 422 (functions/sweep.ts; not 409, which Knative retries),
// and no pod is read or written.
//
// One ConfigMap of a fixed name, so the sweep's Role names it (no other ConfigMap is readable),
// written only at the resourceVersion it was read at (two planners cannot lose each other's
// pass). A shard whose pass's record is older than an hour (by the taker's clock) is refused,
// and the next sweep plans again; the record itself is dropped by the first planner that
// writes after that hour. In a dry run nothing is stored and no shard can write, so nothing
// is checked.
import { z } from 'zod';
import { shardDigest, type SweepShard } from '../../cloudevents/index.js';
import { ConfigMapStore, jsonEntries, readStored, type ConfigMapReader } from '../../kube/configmap-store.js';
import type { ClusterWriter } from '../../kube/writer.js';

import { PLANS_NAME } from '../../model/keys.js';

export { PLANS_NAME };
export const PLAN_TTL_MS = 60 * 60 * 1000;
const ROUNDS = 10;

/** One pass's record: when its planner stored it (its own clock), and each shard's digest by index. A hand-edited entry that is not one plans nothing. */
const passRecord = z.looseObject({
  at: z.number(),
  shards: z.custom<Record<string, string>>((v) => typeof v === 'object' && v !== null),
});
type PassRecord = z.infer<typeof passRecord>;

const where = (namespace: string) => ({ namespace, name: PLANS_NAME, codec: jsonEntries(passRecord) });

/** Stores the digests of `shards` before any is posted, dropping records older than an hour; throws when it could not. */
export async function storePlan(
  core: ConfigMapReader,
  writer: ClusterWriter,
  namespace: string,
  pass: string,
  shards: readonly SweepShard[],
  now: number,
): Promise<void> {
  const record: PassRecord = { at: now, shards: Object.fromEntries(shards.map((s) => [String(s.index), shardDigest(s)])) };
  const plans = new ConfigMapStore(core, writer, { ...where(namespace), contendedMessage: 'plans contended' });
  await plans.update(({ value }) => {
    const live = [...value].filter(([p, r]) => p !== pass && r.at > now - PLAN_TTL_MS);
    return { next: new Map([...live, [pass, record]]), answer: undefined };
  }, ROUNDS);
}

/**
 * Why a shard is not one a planner stored for its pass within the hour before `now` (the
 * taker's clock), or undefined when it is. A record older than that is refused even while
 * it is still stored (no later planner wrote to drop it).
 */
export async function unplannedShard(core: ConfigMapReader, namespace: string, shard: SweepShard, now: number): Promise<string | undefined> {
  const seen = await readStored(core, where(namespace));
  const record = seen.value.get(shard.pass);
  const id = `sweep shard ${shard.pass}-${shard.index}`;
  // A record someone mangled is no plan: refused as one never stored, and said as what it is.
  const mangled = seen.unreadable.find((u) => u.key === shard.pass);
  if (mangled)
    return `${id}: the plan of pass ${shard.pass} in ${namespace}/${PLANS_NAME} cannot be read (${mangled.why}): nothing done; the next sweep plans again`;
  if (!record) return `${id}: no plan of pass ${shard.pass} is stored in ${namespace}/${PLANS_NAME} (never planned, or older than an hour): nothing done`;
  if (record.at <= now - PLAN_TTL_MS)
    return `${id}: the plan of pass ${shard.pass} is older than an hour (stored ${new Date(record.at).toISOString()}): nothing done; the next sweep plans again`;
  if (record.shards[String(shard.index)] !== shardDigest(shard)) return `${id}: not the shard the planner stored for that pass: nothing done`;
  return undefined;
}
