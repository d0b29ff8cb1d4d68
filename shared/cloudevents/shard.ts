// A sweep shard: a slice of one sweep's decisions that the planning instance hands to any
// instance through the broker (docs/scale.md). It names pods, nothing more: the instance
// that takes it reads each pod and decides again on what is stored, so a shard (forged,
// replayed, or simply late) can never remove a pod the policy does not select as it is now;
// and it takes only a shard whose digest the planner stored (cleanup/io/shard-plan.ts), so
// the pass's limits hold too.
import { createHash } from 'node:crypto';
import { CloudEvent } from 'cloudevents';
import { z } from 'zod';
import { namespaceName, objectName, token } from '../model/pod-schema.js';
import { BadEventError, parseOrThrow } from './errors.js';
import type { PartialOrigin, ShardEvent, SweepShard } from './types.js';

export const SWEEP_SHARD_TYPE = 'dev.kube-tidy.sweep.shard.v1';

/** A shard is a bounded unit of work: at most this many pods (a few hundred KiB at most). */
export const MAX_SHARD_PODS = 2000;

const shardSchema = z.strictObject({
  /** Which sweep planned it (for logs and answers; it decides nothing). */
  pass: z.string().regex(/^[a-z0-9-]{1,64}$/, 'expected up to 64 of [a-z0-9-]'),
  index: z.number().int().nonnegative(),
  of: z.number().int().positive(),
  pods: z
    .array(z.strictObject({ namespace: namespaceName, name: objectName, uid: token }))
    .min(1)
    .max(MAX_SHARD_PODS),
});

export type { ShardEvent, SweepShard } from './types.js';
// The schema and the type in types.ts (a leaf the event union reads) describe the same shape.
const _sameShape: z.output<typeof shardSchema> extends SweepShard ? (SweepShard extends z.output<typeof shardSchema> ? true : never) : never = true;

/** `root` names where the shard sat: `data`, or inside a Pub/Sub message. */
export function decodeShardEvent(data: unknown, origin: PartialOrigin, root = 'data'): ShardEvent {
  const shard = parseOrThrow(shardSchema, data, root, 'sweep shard');
  if (shard.index >= shard.of) throw new BadEventError(400, 'invalid sweep shard', [`${root}.index: must be below ${root}.of`]);
  return { type: 'shard', shard, origin: { ...origin, bridge: origin.bridge ?? 'kube-tidy' } };
}

/** The CloudEvent for a shard; its id is stable per (pass, index), so a broker can de-duplicate. */
export function shardEvent(shard: SweepShard, source: string): CloudEvent<SweepShard> {
  return new CloudEvent<SweepShard>({
    specversion: '1.0',
    id: `${shard.pass}-${shard.index}`,
    type: SWEEP_SHARD_TYPE,
    source,
    datacontenttype: 'application/json',
    data: shard,
  });
}

/** What the planner stores and the taker checks: sha256 over the shard's fields in a fixed order. */
export function shardDigest(shard: SweepShard): string {
  const canonical = JSON.stringify([shard.pass, shard.index, shard.of, shard.pods.map((p) => [p.namespace, p.name, p.uid])]);
  return createHash('sha256').update(canonical).digest('hex');
}
