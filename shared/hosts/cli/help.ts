// Help texts, one per command, printed by --help and on usage errors.

export const MAIN_HELP = `kube-tidy: event-driven cleanup for Kubernetes

Usage:
  kube-tidy policy check FILE [--allow-unsupported]
  kube-tidy plan --policy FILE --pods FILE [--nodes FILE] [--now RFC3339] [options]
  kube-tidy plan --kubeconfig FILE [--context C] [--namespace N] [--policy FILE] [options]
  kube-tidy plan (--pods FILE | --kubeconfig FILE) --policy NEW --against CURRENT [--max-new N|P%]
  kube-tidy run --kubeconfig FILE --yes [--context C] [--namespace N] [--policy FILE] [options]
  kube-tidy bridge --kubeconfig FILE --sink URL [--kinds Pod,Job] [options]
  kube-tidy rbac --policy FILE [--name NAME] [--resource Kind=plural ...]
  kube-tidy descheduler --policy-config-file FILE [the descheduler's flags]

Commands:
  policy check   Validate a DeschedulerPolicy and print it normalized (defaults filled) as JSON.
  plan           With --pods: offline plan over a pod dump. With --kubeconfig: plan against a
                 live cluster through the API server's dry run (read-only; PDB refusals show),
                 the kubeTidy.objects rules included (kinds Job, PersistentVolumeClaim and
                 Workload: finished Jobs, unused claims, finished Kueue Workloads).
  run            One real pass against a live cluster (deletes and evicts pods, then deletes
                 what the object rules in mode delete select; asks for --yes).
  bridge         Watch a cluster and POST its changes as Knative ApiServerSource CloudEvents.
  rbac           Print the ClusterRole the policy's kubeTidy.ttl rules need (get, list, watch,
                 delete on each kind they name), as \`kyverno create cluster-role\` does for Kyverno.
  descheduler    The descheduler's command (v0.36.0 flags, defaults and metrics): cycles on
                 an interval, or once with --descheduling-interval 0 (/bin/descheduler in the image).

Run "kube-tidy COMMAND --help" for a command's options.
Output: a table when stdout is a terminal, JSON lines when it is piped (-o json|table to choose).
Exit codes: 0 done, 2 invalid input (every problem is listed with its field path), 1 other errors
(for plan/run against a cluster: the cluster could not be read, or a selected pod or object
could not be handled),
3 plan --against: the new policy newly selects more pods than --max-new allows (or newly
deletes more objects of one kind than it allows).
`;

/** plan --against: the same words offline and live. */
const DIFF_HELP = `Comparing two policies (--against): what changing the policy would change.
  --against CURRENT             The policy in force, to compare --policy (the new one) with:
                                  FILE                  a DeschedulerPolicy file (YAML or JSON;
                                                        a file named "deployed": ./deployed)
                                  deployed              the deployed kube-tidy's ConfigMap,
                                                        kube-tidy/kube-tidy-policy (live only)
                                  configmap:NS/NAME     key policy.yaml of that ConfigMap (live only)
  --max-new N | P%              Exit 3 when the new policy newly selects more than N pods, or
                                more than P% of the pods seen (with P%, every pod is listed);
                                or, for each kind of the kubeTidy.objects rules on its own,
                                newly DELETES more than N objects or P% of that kind listed.
                                At the threshold exactly is within it.
Both policies are decided over the same pods (offline: the dump; live: ONE paged LIST, read
once) at the same instant, each with its own limits and order, and nothing is written, not even
as a dry run. The brakes (budgets, the percentage abort) are not applied: they pace removals,
not what a policy selects. Output: on a terminal, a table of the pods and one of the counts
(-o to choose), then the same two for the objects; piped, JSON lines with a "type" (below). A
summary line goes to stderr (one more per object kind). The JSON lines:
  {"type":"new"|"released"|"changed","namespace","name","uid","before","after"}
      before/after: {"status":"selected","profile","strategy","action","reason"},
      {"status":"kept","profile","strategy","reason"} (selected, but a limit or protection
      keeps it) or {"status":"unselected"}; "changed": both select it, by other strategies.
  {"type":"count","namespace","strategy","before","after","new","released","changed"}
  {"type":"total","podsSeen","before","after","new","released","changed","maxNew"?,"exceeded"?}
With kubeTidy.objects rules on either side (live only: a pod dump has no objects), the objects
both rules decide over ONE read of them, before the pods' total line:
  {"type":"object-new"|"object-released"|"object-changed","kind","namespace","name","uid",
      "before","after","newlyDeleted"}   before/after: {"status":"selected","rule","mode","reason"},
      {"status":"kept","rule","reason"}, {"status":"not-yet","rule","at"} or {"status":"unselected"};
      "changed": both select it, by another rule or mode.
  {"type":"object-count","kind","considered","before","after","new","released","changed",
      "newlyDeleted","maxNew"?,"exceeded"?}
The gate counts objects apart from pods and each kind apart: a Job takes its pods, a claim its
data, so neither is one more pod, and a percentage means something only of its own kind. It
counts what is newly DELETED (unselected, kept, not yet eligible or only reported before): a
rule in mode report removes nothing, so a new report rule is shown but never trips the gate.
Exit codes: 0 done, 3 --max-new exceeded, 2 invalid input, 1 other errors.
  e.g. kube-tidy plan --kubeconfig ci.kubeconfig --policy policy.yaml --against deployed --max-new 20
`;

export const POLICY_CHECK_HELP = `Usage: kube-tidy policy check FILE [--allow-unsupported]

Validates FILE (YAML or JSON, descheduler/v1alpha2 DeschedulerPolicy; "-" reads stdin).
On success prints the normalized policy as JSON on stdout and exits 0; warnings go to stderr.
On failure prints every problem with its field path on stderr and exits 2.

Options:
  --allow-unsupported   Plugins kube-tidy does not implement become warnings instead of errors.
  -h, --help            This help.
`;

export const RBAC_HELP = `Usage: kube-tidy rbac --policy FILE [--name NAME] [--namespace NS] [--due-shards N] [--resource Kind=plural ...]

Prints, as YAML on stdout, the ClusterRole the policy's kubeTidy.ttl rules need: get, list,
watch and delete on each kind they name, by API group (and list on pods, Jobs and claims when a
rule names Namespace: a namespace's deletion says what it holds); then the Role, in kube-tidy's
namespace, on those kinds' due lists (create on ConfigMaps; get and update on each kind's
kube-tidy-objects-due-ttl-<kind>[.<group>]-<n>), where objectUpdated times an object at its
expiry. Offline: a kind's resource is the API server's own guess from its Kind (Deployment:
deployments, Ingress: ingresses, NetworkPolicy: networkpolicies); give an irregular one with
--resource. Bind both to kube-tidy's ServiceAccount, or give the chart the same kinds (values
ttl.kinds). A policy with no ttl rules prints none and exits 0; an invalid policy exits 2 with
every problem at its field path.

Options:
  --policy FILE          The policy (YAML or JSON; "-" reads stdin).
  --name NAME            The ClusterRole's name (default kube-tidy-ttl); the Role is NAME-due.
  --namespace NS         kube-tidy's namespace, where the due lists are (default kube-tidy).
  --due-shards N         DUE_SHARDS: due lists per kind (default 4).
  --resource Kind=plural A kind's resource when the guess is wrong (repeatable).
  -h, --help             This help.
`;

export const PLAN_HELP = `Usage: kube-tidy plan --policy FILE --pods FILE [--nodes FILE] [--now RFC3339] [options]

Decides, without touching any cluster, what the policy would do to the pods in FILE (the
output of "kubectl get pods -A -o json", or one Pod; "-" reads stdin). Prints one JSON object
per selected pod, in the order they would be acted on, limits applied:
  {"namespace","name","uid","strategy","action","reason"}
action is "delete" for Succeeded/Failed pods and "evict" (Eviction API) for the others.
A policy's kubeTidy.objects rules are not planned here: a pod dump has no Jobs, claims or
Workloads, nor what their owner rules read; one line on stderr says so (plan them with --kubeconfig).

Options:
  --policy FILE                 DeschedulerPolicy (YAML or JSON). Required.
  --pods FILE                   Pods: a v1 List or a single Pod. Required.
  --nodes FILE                  Nodes ("kubectl get nodes -o json"), for nodeSelector and nodeFit.
  --now RFC3339                 The time to decide at (default: the current time).
  --protected-namespaces LIST   Comma-separated namespaces never touched, IN ADDITION to
                                kube-system (the default is kept: the list adds to it).
                                -NAME takes one out, kube-system included, written with "=":
                                --protected-namespaces=-kube-system (a warning says so).
  --allow-unsupported           Skip unsupported plugins with a warning instead of failing.
  --explain                     Also print, on stderr, the selected pods that are kept and why.
  -o, --output json|table       Default: a table on a terminal, JSON lines otherwise.
  -h, --help                    This help.

With --kubeconfig instead of --pods, plans against a live cluster: see "kube-tidy plan
--kubeconfig FILE --help".

${DIFF_HELP}`;

const LIVE_OPTIONS = `Options:
  --kubeconfig FILE             The cluster. Required: never taken from $KUBECONFIG or ~/.kube/config.
  --context NAME                A context of the kubeconfig other than its current-context.
  -n, --namespace NS            Only this namespace (default: all, as the deployed sweep).
  -l, --label-selector SEL      Only pods matching this label selector; and only objects matching
                                it AND their kubeTidy.objects rule's own selector.
  --policy FILE                 DeschedulerPolicy (YAML or JSON). Default: the one the deployed
                                kube-tidy reads, ConfigMap kube-tidy/kube-tidy-policy key policy.yaml.
  --policy-configmap NS/NAME    Read the policy from this ConfigMap (key policy.yaml) instead.
  --protected-namespaces LIST   Comma-separated namespaces never touched, IN ADDITION to
                                kube-system (the default is kept: the list adds to it).
                                -NAME takes one out, kube-system included, written with "=":
                                --protected-namespaces=-kube-system (a warning says so).
  --allow-unsupported           Skip unsupported plugins with a warning instead of failing.
  --chunk-size N                Pods per LIST page, 1-5000 (default: 500, as kubectl's).
  --brakes-namespace NS         Where the brakes' ledger (ConfigMap kube-tidy-brakes) is charged.
                                Default: the deployed kube-tidy's, the one such ConfigMap in the
                                cluster; with none yet, the policy ConfigMap's namespace (or
                                kube-tidy); with several, the one beside the policy, else
                                kube-tidy's, else name one. Said on stderr. It is kube-tidy's own
                                namespace too, which no ttl rule deletes (without brakes: this
                                flag, else the policy ConfigMap's namespace, else kube-tidy).
  --timeout DURATION            Stop after this long, e.g. 90s (default: 10m); exit 1. Bounds the
                                whole command: the kubeconfig's credential plugin (stopped, with
                                what it started) and every request to the API server.
  -o, --output json|table       Default: a table on a terminal, JSON lines otherwise.
  --explain                     Also print, on stderr, the selected pods that are kept and why.
  --report                      Also write the results as OpenReports (openreports.io/v1alpha1
                                Report, one per namespace and profile, named kube-tidy-PROFILE),
                                replacing the previous ones: the one write a plan makes, for
                                real even in a plan. Needs the CRDs installed. The object
                                rules' too: one per namespace and rule (kube-tidy-objects.RULE).
  -h, --help                    This help.

Each JSON line: {"namespace","name","uid","strategy","action","reason","outcome","dryRun","message"?}
outcome is the API server's answer: deleted/evicted (in a plan: would be), blocked (a
PodDisruptionBudget or a webhook said not now; message says which), gone, stale (changed since
listed), failed (transient), refused. Progress on long lists and a summary line go to stderr.

After the pods, the policy's kubeTidy.objects rules (kind Job: finished Jobs;
PersistentVolumeClaim: unused claims; Workload: the owners of finished Kueue Workloads),
through the same writer and the same brakes, each charged to its kind; nothing is printed for
them when the policy has none. One JSON line each, with a "type"
(a pod's line has none):
  {"type":"object","kind","namespace","name","uid","rule","mode","reason","outcome","dryRun",
      "message"?,"removes"?}   outcome: reported (mode report: nothing removed), deleted (in a
      plan: would be), deferred (a brake; message says which), kept (read again before the
      delete, no longer eligible), gone, stale, failed, refused; "removes": a Workload's owner.
  {"type":"object-kept","kind","namespace","name","uid","rule","mode","reason"}
      matched, kept by an owner rule (a CronJob's history, keepLast) or a protected namespace.
  {"type":"object-eligible","kind","namespace","name","uid","rule","mode","at"}
      matched, its condition not yet held for minAge: eligible at "at" (RFC 3339).
On a terminal, one table of them after the pods' (RESULT: would delete, deleted, reported, kept,
not yet), and a summary line on stderr.
Exit codes: 0 done, 2 invalid input (with the field path), 1 the cluster could not be read (a
credential plugin that could not be run or failed included), the command hit --timeout, or a
selected pod or object failed or was refused.
`;

export const LIVE_PLAN_HELP = `Usage: kube-tidy plan --kubeconfig FILE [--context C] [--namespace N] [--policy FILE] [options]

Read-only: the same pass as the deployed sweep and invoke (paginated LISTs, every strategy,
the limits over the whole cluster), and every delete or eviction it would make is sent with
dryRun=All: the API server validates and admits it (a PodDisruptionBudget at its limit answers
"blocked") and persists nothing. No Kubernetes Event is recorded.

${LIVE_OPTIONS}
${DIFF_HELP}`;

export const RUN_HELP = `Usage: kube-tidy run --kubeconfig FILE --yes [--context C] [--namespace N] [--policy FILE] [options]

One real pass, as "kube-tidy plan --kubeconfig" shows it: terminal pods are DELETEd, others
evicted through the Eviction API (budgets hold; a refusal is "blocked", never forced), each
write tied to the uid and resourceVersion listed, one Kubernetes Event per action. Then the
object rules in mode delete: each object read again and checked again, deleted tied to its uid
and resourceVersion (a Job with propagationPolicy Background: its pods go with it), one Event
each; rules in mode report remove nothing. Without --yes it changes nothing and exits 2.

${LIVE_OPTIONS}`;

export const BRIDGE_HELP = `Usage: kube-tidy bridge --kubeconfig FILE --sink URL [--kinds Pod,Job] [--policy FILE] [options]

Watches the cluster and POSTs one CloudEvent per change to URL, as Knative's ApiServerSource
does in Resource mode: type dev.knative.apiserver.resource.{add,update,delete}, source the API
server URL, subject /apis/<apiVersion>/namespaces/<ns>/<resource>/<name>, extensions kind,
apiversion, name, namespace, data the whole object (the new one on update), binary mode.

Like ApiServerSource it only reports changes: objects that exist when it starts produce no
events, and changes made while its watch cannot be resumed (410 Gone, logged as a gap) are
lost. Run a sweep to back the events up.

Delivery retries no answer, timeouts, 5xx, 404, 408, 409 and 429 with exponential backoff and
jitter; any other answer is logged as rejected and dropped. Events for one object arrive in
order; an event keeps its id across retries. When the queue is full the oldest waiting event
is dropped and logged. Logs are JSON lines on stderr. SIGINT/SIGTERM stop the watch, let
deliveries finish for up to --drain-timeout, print a summary and exit 0.

Options:
  --kubeconfig FILE          Cluster to watch (default: $KUBECONFIG).
  --sink URL                 Where to POST the events (http or https). Required.
  --kinds LIST               Comma-separated kinds: Pod, Job, PersistentVolumeClaim, Workload
                             (kueue.x-k8s.io/v1beta2: Kueue must be installed) (default: Pod,
                             or none with --policy).
  --policy FILE              Also the kinds its kubeTidy.ttl rules name (TTL on any kind), as the
                             cluster serves them (discovery); one it does not serve is said.
  --namespace NS             Only this namespace (default: all).
  --label-selector SEL       Only objects matching this label selector.
  --retries N                Retries after the first attempt (default: 5).
  --timeout DURATION         Per attempt, a Go duration such as 10s or 500ms (default: 10s).
  --concurrency N            Deliveries in flight at once (default: 4).
  --queue-size N             Events waiting before the oldest is dropped (default: 1000).
  --drain-timeout DURATION   How long to finish deliveries after a stop signal (default: 10s).
  --stats-interval DURATION  A count line this often; 0 for none (default: 1m).
  --structured               Send structured mode (application/cloudevents+json), not binary.
  --verbose                  Also log each retry.
  -h, --help                 This help.

Exit codes: 0 stopped by a signal, 2 invalid arguments or kubeconfig, 1 the cluster could not
be listed at start (or another error).
`;

export const DESCHEDULER_HELP = `Usage: kube-tidy descheduler --policy-config-file FILE [flags]   (/bin/descheduler in the image)

The descheduler's command, so its Deployment, CronJob or Helm chart runs kube-tidy by changing
only the image: its flags (--name value or --name=value), defaults and checks (v0.36.0).
  --policy-config-file FILE            The DeschedulerPolicy (v1alpha2; a kubeTidy: section may add kube-tidy's settings).
  --descheduling-interval DURATION     Between the starts of two cycles (e.g. 5m, 720h); 0 (default): one cycle, then exit.
  --dry-run                            Through the API server's dry run: nothing is changed.
  --kubeconfig, --client-connection-kubeconfig FILE
                                       The cluster; default $KUBECONFIG, else the pod's service account.
  --client-connection-qps N, --client-connection-burst N
                                       Client-side rate limit (0: client-go's 5 and 10).
  --leader-elect                       Cycles only while holding the Lease (needs an interval; off in a dry run).
  --leader-elect-lease-duration 137s, --leader-elect-renew-deadline 107s, --leader-elect-retry-period 26s,
  --leader-elect-resource-name descheduler, --leader-elect-resource-namespace kube-system
  --bind-address 0.0.0.0, --secure-port 10258 (0: not served)
                                       HTTPS: /healthz and /metrics (descheduler_* beside kube_tidy_*).
  --cert-dir DIR, --tls-cert-file FILE, --tls-private-key-file FILE
                                       The serving certificate; none given: self-signed (in memory, or
                                       apiserver.crt/.key made in --cert-dir).
  --disable-metrics                    No /metrics.
  -v, --v N                            4 or more: debug logging.  --logging-format text|json: both log JSON lines.
  --allow-unsupported                  kube-tidy's own: skip the plugins it does not implement (each named in a
                                       warning) instead of refusing the policy.
Accepted and not acted on (named in a warning): --otel-*, --feature-gates, --enable-http2, --tls-cipher-suites,
--tls-min-version, --tls-sni-cert-key, --http2-max-streams-per-connection, --permit-*-sharing, --vmodule, --log-*.
Under the descheduler's ClusterRole: without "pods delete" terminal pods go through the Eviction API; without
ConfigMap access the policy's maxNoOfPodsToEvict* hold per cycle (no shared ledger). The log says which.
Exit codes: 0 done (or stopped by SIGTERM), 2 invalid flags or policy (each problem named; a policy file
past 1 MiB), 1 other errors (the cluster could not be read, the Lease was lost or a Lease request refused).
`;
