// Every metric kube-tidy exports, as data: the instruments are made from it (sdk.ts), the
// docs/reference/metrics.md (generated) and the dashboard/alert check (test/unit/metrics/dashboard.test.ts) read it.
// Names are the Prometheus names as scraped (counters end in _total, durations in _seconds);
// over OTLP a counter is sent without `_total` (the Prometheus side of a collector adds it back).
// A gauge holds the value last set per series (recorder.ts sets it only when it changed).
//
// The pod counter keeps the descheduler's name shape and label names
// (descheduler_pods_evicted_total{result,strategy,profile,namespace,node}) so an alert or a
// panel written for the descheduler carries over by changing the prefix. `action` says whether
// the pod was DELETEd (stored Succeeded/Failed) or went through the Eviction API; `dry_run`
// whether it only went through the API server's dry run (DRY_RUN, invoke's plan): like the
// descheduler, a dry run counts what would have happened, and the label keeps it apart.

export type Kind = 'counter' | 'histogram' | 'gauge';

export interface MetricDef {
  name: string;
  kind: Kind;
  help: string;
  labels: readonly string[];
  /** Histogram bucket upper bounds, seconds. */
  buckets?: readonly number[];
}

// The descheduler's loop_duration_seconds buckets (metrics/metrics.go, v0.36.0): a sweep's
// duration is comparable bucket for bucket.
const LOOP_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500] as const;
// The descheduler's strategy_duration_seconds buckets (metrics/metrics.go, v0.36.0).
const STRATEGY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100] as const;
// One event or one API request: milliseconds to the deadline (30 s by default).
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

export const METRICS = {
  podsEvicted: {
    name: 'kube_tidy_pods_evicted_total',
    kind: 'counter',
    help: "Pods kube-tidy deleted or evicted, by result (success, blocked: a PodDisruptionBudget said no, failed: transient, refused: for good, stale, gone, evacuation-requested: marked request-evict-only, its evacuation asked for instead of an eviction, evacuating: one already asked for or under way), action (delete, evict), strategy, profile, namespace and node (the descheduler's descheduler_pods_evicted_total labels), and dry_run (true: admitted by the API server's dry run, nothing removed).",
    labels: ['result', 'action', 'strategy', 'profile', 'namespace', 'node', 'dry_run'],
  },
  requests: {
    name: 'kube_tidy_requests_total',
    kind: 'counter',
    help: 'Requests (events, ticks, calls) a target answered, by target, HTTP status code and outcome.',
    labels: ['target', 'code', 'outcome'],
  },
  requestDuration: {
    name: 'kube_tidy_request_duration_seconds',
    kind: 'histogram',
    help: 'Time to answer one request (an event, a tick, a call), by target and HTTP status code.',
    labels: ['target', 'code'],
    buckets: REQUEST_BUCKETS,
  },
  loopDuration: {
    name: 'kube_tidy_loop_duration_seconds',
    kind: 'histogram',
    help: "Time taken by a full pass on a schedule tick (sweep, orphanSweep, evacuation, defrag), by target. The descheduler's loop_duration_seconds buckets.",
    labels: ['target'],
    buckets: LOOP_BUCKETS,
  },
  apiRequests: {
    name: 'kube_tidy_api_requests_total',
    kind: 'counter',
    help: 'Kubernetes API requests sent (retries included), by method and API server host.',
    labels: ['method', 'host'],
  },
  apiResponses: {
    name: 'kube_tidy_api_responses_total',
    kind: 'counter',
    help: 'Kubernetes API answers, by API server host and HTTP status code; requests minus answers got none (timeout, connection error).',
    labels: ['host', 'code'],
  },
  cascades: {
    name: 'kube_tidy_multikueue_cascades_total',
    kind: 'counter',
    help: 'MultiKueue cascade deletions of a deleted Job, per worker cluster and outcome (deleted, gone, terminating, other-origin, no-origin, unreachable, failed).',
    labels: ['worker', 'outcome'],
  },
  orphans: {
    name: 'kube_tidy_multikueue_orphans_total',
    kind: 'counter',
    help: 'Orphans the MultiKueue orphan sweep found, per worker cluster, kind and result (the write outcome, or the planned action).',
    labels: ['worker', 'kind', 'result'],
  },
  workerSweeps: {
    name: 'kube_tidy_multikueue_worker_sweeps_total',
    kind: 'counter',
    help: 'Orphan sweeps of one worker cluster, by worker and outcome (swept, unreachable, failed).',
    labels: ['worker', 'outcome'],
  },
  evacuations: {
    name: 'kube_tidy_evacuations_total',
    kind: 'counter',
    help: 'Evacuation passes over one pod, by the state they left it in (started, waiting, queued, deferred, blocked, backoff, succeeded, failed, timedout, cancelled, nothing-to-do).',
    labels: ['state'],
  },
  defragSteps: {
    name: 'kube_tidy_defrag_steps_total',
    kind: 'counter',
    help: 'Defragmentation steps, by outcome (planned, evicted, evacuation-requested, deferred: a budget of the brakes held the move back, waiting, blocked, stale, converged).',
    labels: ['outcome'],
  },
  writesRefused: {
    name: 'kube_tidy_writes_refused_total',
    kind: 'counter',
    help: "Cluster writes that did not happen because kube-tidy or the API server said no, counted at the one writer for every family, by reason (protected-namespace, fenced: kube-tidy's own, nothing sent; forbidden: RBAC 403; unauthorized: 401; invalid: 400/422; disruption-budget: an eviction a PodDisruptionBudget refused (429); eviction-blocked: an eviction refused with 429 for another reason; stale: a uid/resourceVersion precondition no longer held (409); rejected: any other 4xx) and verb (delete, evict, patch, create, update). Transient failures (5xx, timeouts) are not refusals. A brake's deferral sends nothing and is kube_tidy_budget_deferred_total.",
    labels: ['reason', 'verb'],
  },
  dueRefused: {
    name: 'kube_tidy_due_refused_total',
    kind: 'counter',
    help: 'Pods (and objects of the kubeTidy.objects rules, in their own lists) not scheduled to be acted on at their time because a bound was reached, by reason: list-full (their due list shard held DUE_SHARD_CAPACITY entries), timers-full (the instance had DUE_TIMERS_MAX timers armed). Nothing is lost: the next sweep covers them; a steady rate says the bounds are too small for the cluster.',
    labels: ['reason'],
  },
  stateUnreadable: {
    name: 'kube_tidy_state_unreadable_total',
    kind: 'counter',
    help: "Times kube-tidy found state it keeps in the cluster not as it wrote it, by store (brakes-ledger, due-list, evacuation-slots, lease) and found (unreadable: it fails its schema; deleted; replaced: another object under its name; foreign: the brakes' ledger reads as one but was last written by another field manager than kube-tidy's, which is named in the LedgerRebuilt Event). Never taken as empty: the brakes' ledger is rebuilt blind (the windows under way count as spent, trips unknown until a person resumes), unreadable due-list entries are left to the next sweep, unreadable evacuation slots stay held (on no known node) until a tick frees them or writes them again from their pod, and slots of evacuations in flight missing from a deleted or emptied ConfigMap are written again by the tick from the pods' Started state (found deleted); a standalone leader that finds its Lease deleted or naming no holder stops writing until it holds it again, and a follower does not take such a Lease before the claim it last saw, or the duration it states, could have ended.",
    labels: ['store', 'found'],
  },
  objectsDecided: {
    name: 'kube_tidy_objects_total',
    kind: 'counter',
    help: "Objects cleanup beyond pods decided on (kubeTidy.objects: finished Jobs, unused PersistentVolumeClaims, the owners of finished Kueue Workloads), by kind, rule, mode (report, delete), outcome (reported: a report rule, nothing removed; deleted; deferred: a brake held it back; kept: read again before the delete, it no longer qualified; stale: changed between that read and the delete, the uid/resourceVersion precondition held it; gone; failed: transient; refused: for good), namespace and dry_run (true: through the API server's dry run).",
    labels: ['kind', 'rule', 'mode', 'outcome', 'namespace', 'dry_run'],
  },
  budgetDeferred: {
    name: 'kube_tidy_budget_deferred_total',
    kind: 'counter',
    help: 'Pods a brake held back (docs/brakes.md), by budget (maxNoOfPodsToEvictTotal, kubeTidy.brakes.rates[0], kubeTidy.brakes.abort, ...), scope (cluster, namespace, node, owner) and path (event, pass: pod cleanup; objects: a delete of cleanup beyond pods; defrag: the eviction of a defragmentation step; evacuation: the start of an evacuation, with EVACUATION_CHARGE_BUDGETS): deferred to a later pass, event or step, never an error.',
    labels: ['budget', 'scope', 'path'],
  },
  budgetAborted: {
    name: 'kube_tidy_budget_aborted_total',
    kind: 'counter',
    help: 'Passes a percentage abort (kubeTidy.brakes.abort) stopped, by the scope that crossed its percent (cluster, namespace, owner). The scope stays stopped until the rule is raised or invoke resumes it.',
    labels: ['scope'],
  },
  budgetRemaining: {
    name: 'kube_tidy_budget_remaining',
    kind: 'gauge',
    help: 'Removals a budget still allows in its current window, by budget (maxNoOfPodsToEvictTotal, maxNoOfPodsToEvictPerNamespace, maxNoOfPodsToEvictPerNode, kubeTidy.brakes.rates[0], ...), scope (cluster, namespace, node, owner) and key ("" for the cluster, else the namespace, the node or namespace/Kind/name of the owner): its max minus what the shared ledger counts as removed or reserved by any instance. Set at each ledger read or write; a key once shown goes back to its full max when its window ends; past the first 199 keys, _other shows the lowest of the rest.',
    labels: ['budget', 'scope', 'key'],
  },
  defragNodesFreed: {
    name: 'kube_tidy_defrag_nodes_freed_total',
    kind: 'counter',
    help: 'Nodes defragmentation emptied and marked freed (left cordoned for the autoscaler).',
    labels: [],
  },
  metricsPushes: {
    name: 'kube_tidy_metrics_pushes_total',
    kind: 'counter',
    help: 'OTLP pushes at the end of an answer (serverless mode), by result: ok, failed, slow (took the whole 2 s cap), skipped (a push failed or was slow less than a retry interval ago: 30 s, doubled while it keeps failing, at most 5 min; the SDK keeps counting, the next push carries the totals).',
    labels: ['result'],
  },
  eventsOut: {
    name: 'kube_tidy_events_out_total',
    kind: 'counter',
    help: 'CloudEvents kube-tidy sent about its own decisions (docs/observing.md "Decisions as CloudEvents"), by type (dev.kube-tidy.pod.deleted.v1, ...) and result: sent (the sink answered 2xx), failed (a send that errored, timed out or got a non-2xx: never retried), dropped (not sent: the outbox was full, or the sink had failed less than EVENTS_SINK_DOWN_SECONDS ago). Nothing is counted when no sink is set.',
    labels: ['type', 'result'],
  },
  // The descheduler's own names (metrics/metrics.go, v0.36.0), exported only by `kube-tidy
  // descheduler` (recorder.ts `deschedulerNames`), so a dashboard or alert written for the
  // descheduler reads the same series after the image is swapped. Beside kube-tidy's own.
  deschedulerPodsEvicted: {
    name: 'descheduler_pods_evicted_total',
    kind: 'counter',
    help: "The descheduler's pod counter, under `kube-tidy descheduler`: pods evicted (or deleted), by result (success; error: not removed; or the descheduler's limit message, e.g. 'maximum number of evicted pods per node reached'), strategy, profile, namespace and node. A dry run counts success, as the descheduler's.",
    labels: ['result', 'strategy', 'profile', 'namespace', 'node'],
  },
  deschedulerLoopDuration: {
    name: 'descheduler_loop_duration_seconds',
    kind: 'histogram',
    help: "The descheduler's cycle duration, under `kube-tidy descheduler`: time taken to complete a full descheduling cycle.",
    labels: [],
    buckets: LOOP_BUCKETS,
  },
  deschedulerStrategyDuration: {
    name: 'descheduler_strategy_duration_seconds',
    kind: 'histogram',
    help: "The descheduler's per-strategy duration, under `kube-tidy descheduler`, by strategy and profile. kube-tidy decides every strategy of a cycle in one pass over the pods, so each strategy of the cycle is given the pass's duration.",
    labels: ['strategy', 'profile'],
    buckets: STRATEGY_BUCKETS,
  },
  deschedulerBuildInfo: {
    name: 'descheduler_build_info',
    kind: 'gauge',
    help: "The descheduler's build info, under `kube-tidy descheduler` (always 1): AppVersion and DeschedulerVersion say kube-tidy's version and the descheduler version its policies and command follow; GoVersion is the Node.js version.",
    labels: ['AppVersion', 'DeschedulerVersion', 'GitBranch', 'GitSha1', 'GoVersion'],
  },
} as const satisfies Record<string, MetricDef>;

export type MetricKey = keyof typeof METRICS;
export type LabelsOf<K extends MetricKey> = Record<(typeof METRICS)[K]['labels'][number], string>;

/** Every series name a scrape can show for the catalogue (histograms: _bucket, _sum, _count). */
export function exportedSeriesNames(): string[] {
  return Object.values(METRICS).flatMap((m: MetricDef) => (m.kind === 'histogram' ? [`${m.name}_bucket`, `${m.name}_sum`, `${m.name}_count`] : [m.name]));
}
