import { z } from 'zod';
import { bool, positiveInt, readEnv } from '../config/env.js';
import type { Limits } from './core/limits.js';
import type { Settings } from './core/machine.js';
import type { ResponderSettings } from './core/responder.js';

// The evacuation function's settings, from the environment like the rest of the runtime's
// (kept beside the machine so the shared schema does not grow with one function's knobs).
// Read once when the handler is built: a bad value stops the process before it serves.

/** Exported for the generated reference (docs/reference/environment.md). */
export const EvacuationEnv = z
  .object({
    /** Without confirmation the attempt is aborted after this long (descheduler: 10 min). */
    EVACUATION_TIMEOUT_SECONDS: positiveInt.default(600),
    /** Attempts after which a failed migration ends the evacuation Failed. */
    EVACUATION_MAX_ATTEMPTS: positiveInt.max(20).default(3),
    /** The wait before the next attempt after a failed one; it doubles each time. */
    EVACUATION_BACKOFF_SECONDS: z.coerce.number().positive().default(30),
    /** ...up to this. */
    EVACUATION_MAX_BACKOFF_SECONDS: z.coerce.number().positive().default(300),
    /** Evacuations under way at once in the cluster (KubeVirt's default parallelMigrationsPerCluster: 5). */
    EVACUATION_MAX_PER_CLUSTER: positiveInt.default(5),
    /** ...and from one node (KubeVirt's default parallelOutboundMigrationsPerNode: 2). */
    EVACUATION_MAX_PER_NODE: positiveInt.default(2),
    /** KubeVirt launcher pods: through the Eviction API (KubeVirt's webhook), or a migration created directly. */
    EVACUATION_KUBEVIRT_METHOD: z.enum(['eviction', 'migration']).default('eviction'),
    /**
     * Whether an evacuation's start is charged to the policy's limits (maxNoOfPodsToEvict*,
     * rates, aborts) through the admission port, and deferred when they are spent. Off by
     * default: an explicit request is a person's or a controller's decision (draining a node),
     * paced by the slots above, not by what pod cleanup may remove (docs/evacuation.md).
     */
    EVACUATION_CHARGE_BUDGETS: bool.default(false),
    /** Where the previous release kept the slots (kube-tidy-evacuations), carried from there into the brakes' ledger; default KUBE_TIDY_NAMESPACE, then kube-tidy. */
    EVACUATION_NAMESPACE: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a namespace name')
      .default('kube-tidy'),
    /** Only pods of this namespace (one deployment per tenant; tests); default the whole cluster. */
    EVACUATION_SCOPE_NAMESPACE: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a namespace name')
      .optional(),
    /**
     * KEP-4563's EvictionRequest API: `auto` asks through it when lifecycle.k8s.io/v1alpha1 is
     * served (and answers as responder kube-tidy.dev/kubevirt), `off` keeps the direct path always.
     */
    EVACUATION_EVICTION_REQUESTS: z.enum(['auto', 'off']).default('auto'),
    /**
     * ...and falls back to the direct path (once per evacuation, the request withdrawn) when no
     * controller answers a request within this long: Kubernetes v1.37 serves the API but ships no
     * evictionrequest controller. Default 60 s, or half of EVACUATION_TIMEOUT_SECONDS when shorter;
     * it must stay below that timeout.
     */
    EVACUATION_EVICTION_REQUEST_ANSWER_SECONDS: z.coerce.number().positive().optional(),
    /** As responder: heartbeat at least this often while Active (the API's deadline is 20 min). */
    EVACUATION_HEARTBEAT_SECONDS: z.coerce.number().positive().max(600).default(60),
    /** ...and never more often than this (types.go asks for no more than one per 20 s). */
    EVACUATION_MIN_HEARTBEAT_SECONDS: z.coerce.number().positive().default(20),
    /** Shown in descheduler.alpha.kubernetes.io/eviction-in-progress. */
    EVACUATION_HOLDER: z.string().min(1).default('kube-tidy'),
    /**
     * How long one tick goes on starting and polling pods; the pods left wait for the next tick.
     * Default: SWEEP_TIME_BUDGET_SECONDS when that is set (a tick used the sweep's budget before
     * it had its own, and a deployment that tuned it keeps its ticks as they were), else 50.
     */
    EVACUATION_TICK_BUDGET_SECONDS: positiveInt.optional(),
    /** Read here only as the tick budget's default; checked here too, since pod cleanup's config is not read by this function. */
    SWEEP_TIME_BUDGET_SECONDS: positiveInt.optional(),
  })
  .superRefine((e, ctx) => {
    const answer = e.EVACUATION_EVICTION_REQUEST_ANSWER_SECONDS;
    if (answer !== undefined && answer >= e.EVACUATION_TIMEOUT_SECONDS) {
      ctx.addIssue({
        code: 'custom',
        path: ['EVACUATION_EVICTION_REQUEST_ANSWER_SECONDS'],
        message: `must be below EVACUATION_TIMEOUT_SECONDS (${e.EVACUATION_TIMEOUT_SECONDS}): a request nobody answers would time out before falling back`,
      });
    }
  });

/** How long an EvictionRequest may go unanswered when EVACUATION_EVICTION_REQUEST_ANSWER_SECONDS is not set. */
export const DEFAULT_REQUEST_ANSWER_SECONDS = 60;

/** A tick's budget when neither EVACUATION_TICK_BUDGET_SECONDS nor SWEEP_TIME_BUDGET_SECONDS is set (below a minute's tick). */
export const DEFAULT_TICK_BUDGET_SECONDS = 50;

export interface EvacuationConfig {
  settings: Settings;
  limits: Limits;
  namespace: string;
  holder: string;
  scope?: string;
  evictionRequests: 'auto' | 'off';
  responder: ResponderSettings;
  /** One tick's time budget (EVACUATION_TICK_BUDGET_SECONDS). */
  tickBudgetMs: number;
}

export function readEvacuationConfig(env: NodeJS.ProcessEnv = process.env): EvacuationConfig {
  const e = readEnv(EvacuationEnv, { EVACUATION_NAMESPACE: env.KUBE_TIDY_NAMESPACE, ...env });
  return {
    settings: {
      timeoutMs: e.EVACUATION_TIMEOUT_SECONDS * 1000,
      maxAttempts: e.EVACUATION_MAX_ATTEMPTS,
      backoffMs: e.EVACUATION_BACKOFF_SECONDS * 1000,
      maxBackoffMs: e.EVACUATION_MAX_BACKOFF_SECONDS * 1000,
      kubevirtMethod: e.EVACUATION_KUBEVIRT_METHOD,
      requestAnswerMs: (e.EVACUATION_EVICTION_REQUEST_ANSWER_SECONDS ?? Math.min(DEFAULT_REQUEST_ANSWER_SECONDS, e.EVACUATION_TIMEOUT_SECONDS / 2)) * 1000,
      chargeBudgets: e.EVACUATION_CHARGE_BUDGETS,
    },
    limits: { perCluster: e.EVACUATION_MAX_PER_CLUSTER, perNode: e.EVACUATION_MAX_PER_NODE },
    namespace: e.EVACUATION_NAMESPACE,
    holder: e.EVACUATION_HOLDER,
    evictionRequests: e.EVACUATION_EVICTION_REQUESTS,
    responder: { heartbeatMs: e.EVACUATION_HEARTBEAT_SECONDS * 1000, minHeartbeatMs: e.EVACUATION_MIN_HEARTBEAT_SECONDS * 1000 },
    tickBudgetMs: (e.EVACUATION_TICK_BUDGET_SECONDS ?? e.SWEEP_TIME_BUDGET_SECONDS ?? DEFAULT_TICK_BUDGET_SECONDS) * 1000,
    ...(e.EVACUATION_SCOPE_NAMESPACE ? { scope: e.EVACUATION_SCOPE_NAMESPACE } : {}),
  };
}
