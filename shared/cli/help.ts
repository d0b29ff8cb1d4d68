// Help texts, one per command, printed by --help and on usage errors.

export const MAIN_HELP = `kube-tidy: event-driven cleanup for Kubernetes

Usage:
  kube-tidy policy check FILE [--allow-unsupported]
  kube-tidy plan --policy FILE --pods FILE [--nodes FILE] [--now RFC3339] [options]

Commands:
  policy check   Validate a DeschedulerPolicy and print it normalized (defaults filled) as JSON.
  plan           Offline plan over a pod dump: one JSON line per pod the policy selects.

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
