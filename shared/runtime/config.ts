// What every function process reads from the environment, validated once at start: a bad
// setting stops the process with every problem named, before any event is taken. Each
// family reads its own variables (cleanup/config.ts, multikueue/config.ts,
// evacuation/config.ts, defrag/config.ts) through the same helpers, when its targets are set up.
import { z } from 'zod';
import { bool, list, positiveInt, readEnv } from '../config/env.js';
import { DEFAULT_BURST, DEFAULT_QPS } from '../kube/throttle.js';
import { namespaceName } from '../model/pod-schema.js';
import { DEFAULT_PROTECTED_NAMESPACES } from '../selection/decide.js';
import { EventsEnv } from '../notify/config.js';

export { ConfigError } from '../config/env.js';

/** Request bodies above this are refused (413) before they are parsed: 1 MiB, a Pod is a few KiB. */
export const MaxBodyBytes = positiveInt.max(64 * 1024 * 1024).default(1024 * 1024);
/** Every request is answered by then (503 if its work did not finish: a retry continues it). */
export const RequestDeadlineSeconds = positiveInt.default(55);

const EnvSchema = z.object({
  /** The DeschedulerPolicy as a file (YAML or JSON). One of POLICY_FILE and POLICY_CONFIGMAP is required by a target that reads a policy. */
  POLICY_FILE: z.string().min(1).optional(),
  /** `namespace/name` of a ConfigMap holding the policy; watched and re-read when it changes (an invalid edit keeps the last good policy and is reported). */
  POLICY_CONFIGMAP: z
    .string()
    .regex(/^[a-z0-9-]+\/[a-z0-9.-]+$/, 'expected namespace/name')
    .optional(),
  /** The key of POLICY_CONFIGMAP that holds the policy. */
  POLICY_CONFIGMAP_KEY: z.string().min(1).default('policy.yaml'),
  /** Skip the plugins kube-tidy does not implement, with a warning, instead of refusing the policy. */
  ALLOW_UNSUPPORTED_PLUGINS: bool.default(false),
  /** Namespaces never touched, comma-separated. */
  PROTECTED_NAMESPACES: list.default([...DEFAULT_PROTECTED_NAMESPACES]),
  /** Everything through the API server's dryRun=All: validated, admitted, never persisted. */
  DRY_RUN: bool.default(false),
  /** A Kubernetes Event per cleaned pod (a pass records them for its first SWEEP_EVENTS_PER_PASS removals, then one per namespace; outside a pass, one per owner and EVENT_SERIES_WINDOW_SECONDS that counts). */
  RECORD_EVENTS: bool.default(true),
  /**
   * Outside a pass (an event, a due act), removals of one owner (a bare pod's: its namespace)
   * within this window from the first get one Event that counts (an events.k8s.io/v1 series
   * about the owner), the first its own Event on the pod. 0: an Event per pod.
   */
  EVENT_SERIES_WINDOW_SECONDS: z.coerce.number().int().nonnegative().max(3600).default(60),
  /** The least time between two writes of one Event series (its count as kubectl shows it moves at this pace). */
  EVENT_SERIES_INTERVAL_SECONDS: positiveInt.max(600).default(10),
  /** Cluster access from these kubeconfig files; unset: the pod's service account (never ~/.kube/config). */
  KUBECONFIG: z.string().min(1).optional(),
  /** Client-side rate limit for every request, as client-go's QPS/Burst (see kube/throttle.ts). */
  KUBE_CLIENT_QPS: positiveInt.max(10_000).default(DEFAULT_QPS),
  /** The token bucket's burst beside KUBE_CLIENT_QPS. */
  KUBE_CLIENT_BURST: positiveInt.max(20_000).default(DEFAULT_BURST),
  /** One API request's timeout. */
  REQUEST_TIMEOUT_SECONDS: positiveInt.default(20),
  /**
   * Once listening, load the Kubernetes client and fetch the sender check's issuer and keys in
   * the background, so the first event does not pay for them (issue 23). `false`: on first need.
   */
  WARM_AT_START: bool.default(true),
  /** Every request is answered by then: 503 if its work did not finish (a retry continues it). */
  REQUEST_DEADLINE_SECONDS: RequestDeadlineSeconds,
  /** Larger request bodies are refused 413 before they are read; compressed bodies 415. */
  MAX_BODY_BYTES: MaxBodyBytes,
  /**
   * Where the brakes' shared ledger lives (ConfigMap kube-tidy-brakes, brakes/io/store.ts),
   * created with the namespace if missing. Default KUBE_TIDY_NAMESPACE, then kube-tidy.
   */
  BRAKES_NAMESPACE: namespaceName.default('kube-tidy'),
  /**
   * How long a reservation on the ledger lives unrenewed before any instance charges it in
   * full (a killed instance loses at most its chunk for this long). Tests shorten it.
   */
  BRAKES_HOLD_SECONDS: positiveInt.max(3600).default(60),
  /** Where the decisions go as CloudEvents (notify/config.ts; docs/observing.md "Decisions as CloudEvents"): checked here, at start. */
  ...EventsEnv,
});

export type RuntimeConfig = z.output<typeof EnvSchema>;

/** `needsPolicy`: the target reads a policy, so exactly one of POLICY_FILE/POLICY_CONFIGMAP is required. */
export function readConfig(env: NodeJS.ProcessEnv = process.env, { needsPolicy = true }: { needsPolicy?: boolean } = {}): RuntimeConfig {
  const schema = EnvSchema.refine((e) => !(e.POLICY_FILE && e.POLICY_CONFIGMAP), {
    message: 'set only one of POLICY_FILE and POLICY_CONFIGMAP',
    path: ['POLICY_FILE'],
  })
    .refine((e) => !(e.EVENTS_TOPIC && e.EVENTS_SINK && e.EVENTS_SINK !== 'none'), {
      message: 'set only one of EVENTS_SINK (HTTP) and EVENTS_TOPIC (Pub/Sub)',
      path: ['EVENTS_TOPIC'],
    })
    .refine((e) => !needsPolicy || e.POLICY_FILE || e.POLICY_CONFIGMAP, {
      message: 'set POLICY_FILE (a policy file) or POLICY_CONFIGMAP (namespace/name)',
      path: ['POLICY_FILE'],
    });
  return readEnv(schema, { BRAKES_NAMESPACE: env.KUBE_TIDY_NAMESPACE, ...env });
}

/** The schema as declared, for the generated reference (docs/reference/environment.md). */
export { EnvSchema as RuntimeEnv };
