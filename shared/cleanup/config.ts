// Pod cleanup's own settings (the policy, paging and budgets are every process's: runtime/config.ts).
import { z } from 'zod';
import { MAX_SHARD_PODS } from '../cloudevents/shard.js';
import { positiveInt, readEnv } from '../config/env.js';

const Schema = z.object({
  /** Bearer token that lets `invoke` run; without it, invoke only plans. */
  INVOKE_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * Where a sweep posts the shards it will not act on itself (a Knative Broker's URL, or any
   * CloudEvents endpoint that delivers to `sweep`). Knative's SinkBinding sets K_SINK.
   * Unset: no fan-out, one instance does what fits its time budget.
   */
  SWEEP_SHARD_SINK: z.url({ protocol: /^https?$/ }).optional(),
  K_SINK: z.url({ protocol: /^https?$/ }).optional(),
  /** Pods per shard, and how many the planning sweep acts on itself before handing out the rest. */
  SWEEP_SHARD_SIZE: positiveInt.max(MAX_SHARD_PODS).default(1000),
  /** Removals in one pass that get an Event each; the rest one Event per namespace (io/event-budget.ts). */
  SWEEP_EVENTS_PER_PASS: z.coerce.number().int().nonnegative().default(100),
});

export type CleanupConfig = z.output<typeof Schema> & { shardSink?: string };

export const readCleanupConfig = (env: NodeJS.ProcessEnv): CleanupConfig => {
  const c = readEnv(Schema, env);
  const shardSink = c.SWEEP_SHARD_SINK ?? c.K_SINK;
  return { ...c, ...(shardSink ? { shardSink } : {}) };
};
