// Pod cleanup's own settings: how a pass pages, writes and spends its time, where its shards go
// and who may run invoke (the policy, dry run and protected namespaces are every process's:
// runtime/config.ts). Read once at setup (index.ts), so a bad one stops the process at start.
import { z } from 'zod';
import { MAX_SHARD_PODS } from '../cloudevents/shard.js';
import { positiveInt, readEnv } from '../config/env.js';
import { namespaceName } from '../model/pod-schema.js';
import type { SweepSettings } from './handle.js';
import type { ShardSink } from './io/shards.js';

const hostPort = z.string().regex(/^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:]+\](:\d{1,5})?$/, 'expected host or host:port');

/** Writes a pass has in flight at once unless SWEEP_CONCURRENCY says otherwise (the CLI's too). */
export const DEFAULT_SWEEP_CONCURRENCY = 32;

/**
 * How a pass runs, in the environment's units (handle.ts turns them into PassSettings). Apart
 * from the rest so a family that decides one pod the way pod cleanup does (evacuation) reads
 * only these, not invoke's token or the shard sink.
 */
const PassSchema = z.object({
  /** Pods per LIST page. */
  SWEEP_PAGE_SIZE: positiveInt.max(5000).default(500),
  /** A pass's or a shard's time budget. */
  SWEEP_TIME_BUDGET_SECONDS: positiveInt.default(50),
  /** Writes a pass has in flight at once (in the policy's order; the rate limit still applies): the pods' removals, and the objects' deletes (kubeTidy.objects). */
  SWEEP_CONCURRENCY: positiveInt.max(256).default(DEFAULT_SWEEP_CONCURRENCY),
  /** Removals in one pass that get an Event each; the rest one Event per namespace (io/event-budget.ts). */
  SWEEP_EVENTS_PER_PASS: z.coerce.number().int().nonnegative().default(100),
});

export type PassConfig = z.output<typeof PassSchema>;

export const readPassConfig = (env: NodeJS.ProcessEnv): PassConfig => readEnv(PassSchema, env);

/** The handle's settings from these variables: seconds in the environment, milliseconds in the code. */
export const sweepSettingsOf = (c: PassConfig): SweepSettings => ({
  pageSize: c.SWEEP_PAGE_SIZE,
  concurrency: c.SWEEP_CONCURRENCY,
  budgetMs: c.SWEEP_TIME_BUDGET_SECONDS * 1000,
  eventsPerPass: c.SWEEP_EVENTS_PER_PASS,
});

const Schema = PassSchema.extend({
  /** Bearer token that lets `invoke` run; without it, invoke only plans. */
  INVOKE_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * Where a sweep posts the shards it will not act on itself (a Knative Broker's URL, or any
   * CloudEvents endpoint that delivers to `sweep`). Knative's SinkBinding sets K_SINK.
   * Unset: no fan-out, one instance does what fits its time budget.
   */
  SWEEP_SHARD_SINK: z.url({ protocol: /^https?$/ }).optional(),
  /** Injected by a Knative SinkBinding: where shards go when SWEEP_SHARD_SINK and SWEEP_SHARD_TOPIC are unset. */
  K_SINK: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * On GCP (no broker): the Pub/Sub topic a sweep publishes its shards to, which an Eventarc
   * trigger delivers back to `sweep`. The service's account needs roles/pubsub.publisher on it.
   */
  SWEEP_SHARD_TOPIC: z
    .string()
    .regex(/^projects\/[a-z][a-z0-9-]{4,28}[a-z0-9]\/topics\/[A-Za-z][A-Za-z0-9._~+%-]{2,254}$/, 'expected projects/<project>/topics/<topic>')
    .optional(),
  /** As Google's client libraries read them: a Pub/Sub emulator, and where the metadata server is. */
  PUBSUB_EMULATOR_HOST: hostPort.optional(),
  /** Where the metadata server is (its token authorizes the Pub/Sub publish), as Google's libraries read it. */
  GCE_METADATA_HOST: hostPort.optional(),
  /**
   * Where a sweep that fans out stores its plan (a ConfigMap per pass, io/shard-plan.ts); must
   * exist. Default KUBE_TIDY_NAMESPACE (the deployment's namespace, set by the manifests), then kube-tidy.
   */
  SWEEP_PLAN_NAMESPACE: namespaceName.default('kube-tidy'),
  /** Pods per shard, and how many the planning sweep acts on itself before handing out the rest. */
  SWEEP_SHARD_SIZE: positiveInt.max(MAX_SHARD_PODS).default(1000),
  /**
   * `run`: a sweep removes what the policy selects. `audit`: every sweep plans through the API
   * server's dry run and writes what it found as OpenReports (one Report per namespace and
   * profile, docs/observing.md "Audits as OpenReports"); it removes nothing, posts no shards (a shard that
   * arrives is refused) and lists nothing in the due list.
   */
  SWEEP_MODE: z.enum(['run', 'audit']).default('run'),
}).refine((c) => !(c.SWEEP_SHARD_SINK && c.SWEEP_SHARD_TOPIC), { path: ['SWEEP_SHARD_TOPIC'], message: 'set SWEEP_SHARD_SINK or SWEEP_SHARD_TOPIC, not both' });

export type CleanupConfig = z.output<typeof Schema> & { shardSink?: ShardSink };

export const readCleanupConfig = (env: NodeJS.ProcessEnv): CleanupConfig => {
  const c = readEnv(Schema, { SWEEP_PLAN_NAMESPACE: env.KUBE_TIDY_NAMESPACE, ...env });
  const shardSink = shardSinkOf(c);
  return { ...c, ...(shardSink ? { shardSink } : {}) };
};

/** An explicit sink or topic first; Knative's K_SINK (a SinkBinding) only when neither is set. */
function shardSinkOf(c: z.output<typeof Schema>): ShardSink | undefined {
  if (c.SWEEP_SHARD_TOPIC) {
    return {
      topic: c.SWEEP_SHARD_TOPIC,
      ...(c.PUBSUB_EMULATOR_HOST ? { emulatorHost: c.PUBSUB_EMULATOR_HOST } : {}),
      ...(c.GCE_METADATA_HOST ? { metadataHost: c.GCE_METADATA_HOST } : {}),
    };
  }
  const url = c.SWEEP_SHARD_SINK ?? c.K_SINK;
  return url ? { url } : undefined;
}

/** The schema as declared, for the generated reference (docs/reference/environment.md). */
export { PassSchema as PassEnv, Schema as CleanupEnv };
