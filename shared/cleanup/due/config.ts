// The due list's and the timers' settings (docs/time-and-events.md), read once at
// setup of the targets that keep them (podTerminated, objectUpdated), so a bad one stops the process at start.
import { z } from 'zod';
import { list, positiveInt, readEnv } from '../../config/env.js';
import { checkNamedSenders } from '../../config/named-senders.js';
import { namespaceName } from '../../model/pod-schema.js';

const Schema = z
  .object({
    /**
     * How far ahead a pod is scheduled: due within it, a timer and an entry in the due list;
     * further, no entry (the sweep and a later event cover it) and the timer only looks again.
     */
    DUE_HORIZON_SECONDS: positiveInt.max(24 * 3600).default(1800),
    /** The due list's ConfigMaps (kube-tidy-due-0..N-1), by pod uid; the RBAC names each one. */
    DUE_SHARDS: positiveInt.max(64).default(4),
    /** Entries per shard: one more is refused (and counted), so a ConfigMap never outgrows its limit. */
    DUE_SHARD_CAPACITY: positiveInt.max(4000).default(1000),
    /** Timers one process keeps at once; one more is refused and logged (the due list and the sweep still cover it). */
    DUE_TIMERS_MAX: positiveInt.max(1_000_000).default(10_000),
    /**
     * How often a tick (which holds its request until the next one) reads the due list again: an
     * entry written after the tick began waits at most this long past its time. A GET per shard each.
     */
    DUE_POLL_SECONDS: positiveInt.max(60).default(10),
    /** Where the due list lives. Default KUBE_TIDY_NAMESPACE (the deployment's namespace), then kube-tidy. */
    DUE_NAMESPACE: namespaceName.default('kube-tidy'),
    /**
     * The senders whose ticks are taken, as sender authentication names them (SENDER_AUTH_SUBJECTS'
     * form: the tick Trigger's OIDC account, Cloud Scheduler's service account). Unset: any sender
     * the process lets through. A tick from anyone else is refused 403 and does nothing: a tick
     * holds a request and reads the due lists, so not every caller of podTerminated or objectUpdated should send one.
     */
    DUE_TICK_SENDERS: list.optional(),
    // Read only to check DUE_TICK_SENDERS against them.
    SENDER_AUTH: z.string().optional(),
    /** Read only to check DUE_TICK_SENDERS against them. */
    SENDER_AUTH_SUBJECTS: list.optional(),
  })
  .superRefine((e, ctx) => {
    // Without sender authentication every caller is `anonymous`: naming one would refuse every tick or none.
    if (e.DUE_TICK_SENDERS)
      checkNamedSenders(ctx, 'DUE_TICK_SENDERS', e.DUE_TICK_SENDERS, e, { unset: 'take ticks from any sender, or name the scheduler', what: 'tick' });
  });

export type DueConfig = Omit<z.output<typeof Schema>, 'SENDER_AUTH' | 'SENDER_AUTH_SUBJECTS'>;

export const readDueConfig = (env: NodeJS.ProcessEnv): DueConfig => readEnv(Schema, { DUE_NAMESPACE: env.KUBE_TIDY_NAMESPACE, ...env });

/** The schema as declared, for the generated reference (docs/reference/environment.md). */
export { Schema as DueEnv };
