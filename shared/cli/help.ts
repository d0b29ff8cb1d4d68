// Help texts, one per command, printed by --help and on usage errors.

export const MAIN_HELP = `kube-tidy: event-driven cleanup for Kubernetes

Usage:
  kube-tidy policy check FILE [--allow-unsupported]
  kube-tidy plan --policy FILE --pods FILE [--nodes FILE] [--now RFC3339] [options]
  kube-tidy bridge --kubeconfig FILE --sink URL [--kinds Pod,Job] [options]

Commands:
  policy check   Validate a DeschedulerPolicy and print it normalized (defaults filled) as JSON.
  plan           Offline plan over a pod dump: one JSON line per pod the policy selects.
  bridge         Watch a cluster and POST its changes as Knative ApiServerSource CloudEvents.

Run "kube-tidy COMMAND --help" for a command's options.
Exit codes: 0 done, 2 invalid input (every problem is listed with its field path), 1 other errors.
`;

export const POLICY_CHECK_HELP = `Usage: kube-tidy policy check FILE [--allow-unsupported]

Validates FILE (YAML or JSON, descheduler/v1alpha2 DeschedulerPolicy; "-" reads stdin).
On success prints the normalized policy as JSON on stdout and exits 0; warnings go to stderr.
On failure prints every problem with its field path on stderr and exits 2.

Options:
  --allow-unsupported   Plugins kube-tidy does not implement become warnings instead of errors.
  -h, --help            This help.
`;

export const PLAN_HELP = `Usage: kube-tidy plan --policy FILE --pods FILE [--nodes FILE] [--now RFC3339] [options]

Decides, without touching any cluster, what the policy would do to the pods in FILE (the
output of "kubectl get pods -A -o json", or one Pod; "-" reads stdin). Prints one JSON object
per selected pod, in the order they would be acted on, limits applied:
  {"namespace","name","uid","strategy","action","reason"}
action is "delete" for Succeeded/Failed pods and "evict" (Eviction API) for the others.

Options:
  --policy FILE                 DeschedulerPolicy (YAML or JSON). Required.
  --pods FILE                   Pods: a v1 List or a single Pod. Required.
  --nodes FILE                  Nodes ("kubectl get nodes -o json"), for nodeSelector and nodeFit.
  --now RFC3339                 The time to decide at (default: the current time).
  --protected-namespaces LIST   Comma-separated namespaces never touched (default: kube-system).
  --allow-unsupported           Skip unsupported plugins with a warning instead of failing.
  --explain                     Also print, on stderr, the selected pods that are kept and why.
  -h, --help                    This help.
`;

export const BRIDGE_HELP = `Usage: kube-tidy bridge --kubeconfig FILE --sink URL [--kinds Pod,Job] [options]

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
  --kinds LIST               Comma-separated kinds: Pod, Job (default: Pod).
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
