// The chart files generated from serverless.yml (`npm run infra:generate` writes them beside
// the hand-written templates): the knative-mode templates, the standalone RBAC and
// values.yaml, whose defaults are the declaration's. test/unit/helm/chart-files.test.ts fails
// when the committed files are stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { HEAP_PERCENT } from '../bundle/heap.js';
import { REPO_ROOT, type Declaration } from '../declaration/declaration.js';
import { knativeDefaults, knativeTemplates } from './chart-knative.js';
import { standaloneRbacTemplate } from './chart-standalone.js';

export const CHART_DIR = join('infra', 'helm', 'kube-tidy');

/** The standalone process's schedules default to the declaration's crons. */
const block = (key: string, value: unknown): string => stringify({ [key]: value }, { lineWidth: 0 }).trimEnd();

const SELECTORS = `# What is watched: the ApiServerSource's namespaceSelector and a label selector per kind.
# Standalone mode applies both to its watch the same way (events only; the scheduled passes
# follow the policy's namespace filters in either mode). A kind without a selector is watched
# whole: every Job by default, so the object rules see every Job's events (jobDeleted passes
# over Jobs without kueue.x-k8s.io/queue-name itself). A selector narrows a kind, e.g.
# Job: {matchExpressions: [{key: kueue.x-k8s.io/queue-name, operator: Exists}]}: the Jobs
# it leaves out wait for the sweep (docs/objects.md).`;

export function valuesYaml(decl: Declaration): string {
  const d = knativeDefaults(decl);
  const functions = Object.keys(decl.functions).filter((t) => decl.functions[t]!.events.some((e) => !('http' in e)));
  return `${whereValues(decl, d)}${whatValues(decl, d)}${standaloneValues(functions)}${OBSERVABILITY_VALUES}${TTL_VALUES}`;
}

type Defaults = ReturnType<typeof knativeDefaults>;

/** values.yaml's head: the mode, the image, and where kube-tidy runs and reads. */
function whereValues(decl: Declaration, d: Defaults): string {
  return `# GENERATED from serverless.yml by \`npm run infra:generate\` (infra/helm/chart.ts). Do not edit:
# set values with --set / -f, or edit serverless.yml and regenerate.

# knative: the Knative Services, Broker, Triggers and sources of infra/knative/manifests.
# standalone: one Deployment that watches the cluster itself, for clusters without Knative.
mode: knative

# The image by tag: the release's own, whose version is the chart's appVersion. Another build:
# --set image=registry/name:tag, or a whole reference with its digest (name@sha256:...).
${block('image', d.image)}
# Pins the image by digest as well: "sha256:" and 64 hex digits, as the release notes give it.
# The pods then run image@digest (the tag stays for people to read; the digest decides).
imageDigest: ""
imagePullPolicy: IfNotPresent

# Where kube-tidy runs. Empty: the release namespace (helm install -n ... --create-namespace).
namespace: ""
# Render the Namespace object too (as infra/knative/manifests does). Leave false with --create-namespace.
createNamespace: false
# Prefix of cluster-scoped names (ClusterRoles). Empty: the release name.
clusterPrefix: ""
# Where MultiKueue keeps the worker kubeconfig Secrets.
${block('kueueNamespace', decl.provider.kueueNamespace)}
# Grant jobDeleted and orphanSweep read access to those Secrets (a Role in kueueNamespace).
# auto: when the cluster serves MultiKueueCluster (Kueue installed); true; false. With auto on a
# cluster without Kueue nothing is written outside the release's namespace. \`helm template\`
# has no cluster: pass --set multiKueue=true (or --api-versions kueue.x-k8s.io/v1beta2/MultiKueueCluster).
multiKueue: auto

`;
}

/** What kube-tidy does: dry run, the policy, the schedules and selectors, where decisions go, sender auth. */
function whatValues(decl: Declaration, d: Defaults): string {
  return `# Plans through the API server's dry run until you have read the logs and set false.
${block('dryRun', d.dryRun)}
${block('logLevel', d.logLevel)}

# The DeschedulerPolicy (infra/knative/policy.yaml), stored in a ConfigMap the functions watch.
${block('policy', d.policy)}

# Cron (five fields, UTC) per scheduled function. Standalone mode also takes "@every 30s".
${block('schedules', d.schedules)}

${SELECTORS}
${block('selectors', d.selectors)}

# Every decision out as a CloudEvent (docs/observing.md "Decisions as CloudEvents": pod removed, evicted,
# blocked, deferred..., MultiKueue cascades and orphans, evacuation states, defrag steps, one
# pass.completed per pass). sink: "broker" (knative mode: the release's Broker, where a Trigger
# on a dev.kube-tidy.* type routes them; standalone mode: off), "none", or an http(s) URL
# (either mode). brokerRef: {name, namespace} of another Broker, bound with a SinkBinding
# (knative mode; sink is then ignored).
events:
  sink: broker
  brokerRef: {}

# knative mode: each Trigger sends a token of its own OIDC ServiceAccount (Knative Eventing's
# authentication-oidc feature must be on), checked by the function. "none" turns it off.
${block('senderAuth', decl.provider.senderAuth.knative)}

`;
}

/** Standalone mode's Deployment: the functions it runs in process, the Lease, its resources. */
function standaloneValues(functions: string[]): string {
  return `standalone:
  # More than one is safe: a Lease elects the one that acts; the others wait to take over.
  replicas: 1
  # The functions run in-process (every one with an event or a schedule).
${block('functions', functions)
  .split('\n')
  .map((l) => `  ${l}`)
  .join('\n')}
  # Leader election (coordination.k8s.io/v1 Lease), as client-go's defaults.
  leaseDurationSeconds: 15
  renewDeadlineSeconds: 10
  retryPeriodSeconds: 2
  # /healthz, /readyz, /metrics.
  port: 8080
  # SIGTERM to SIGKILL: in-flight work drains, then the Lease is released.
  terminationGracePeriodSeconds: 30
  resources:
    requests: { cpu: 50m, memory: 128Mi }
    limits: { memory: 384Mi }
  # V8's old space (NODE_OPTIONS=--max-old-space-size) as a percent of limits.memory: the rest
  # is for code, buffers and the young generation (infra/bundle/heap.ts). 0: the image's default.
  heapPercent: ${HEAP_PERCENT}

`;
}

const OBSERVABILITY_VALUES = `# Prometheus Operator and Grafana objects; each needs its CRDs or sidecar. Off by default.
observability:
  serviceMonitor:
    enabled: false
    interval: 30s
    labels: {}
  prometheusRule:
    enabled: false
    labels: {}
  dashboard:
    enabled: false
    # The label Grafana's dashboard sidecar selects.
    labels:
      grafana_dashboard: "1"
`;

// TTL on any kind (docs/ttl.md): the kinds the policy's kubeTidy.ttl rules name, which the
// functions that run them (sweep, invoke; standalone) may then list, watch and delete.
const TTL_VALUES = `
# TTL on any kind (docs/ttl.md): the kinds the policy's kubeTidy.ttl rules name, each
# {group, kind} ("" for the core group) and its resource when the plural is irregular; the
# chart grants get, list, watch and delete on each (templates/ttl-rbac.yaml), as
# \`kube-tidy rbac --policy\` prints them. None by default: a ttl rule without its kind here
# says the kind cannot be listed, and goes on with the others.
ttl:
  kinds: []
  # - {group: "", kind: Namespace}
  # - {group: apps, kind: Deployment}
  # - {group: networking.k8s.io, kind: Ingress, resource: ingresses}
`;

export function chartFiles(decl: Declaration): Record<string, string> {
  const out: Record<string, string> = { [join(CHART_DIR, 'values.yaml')]: valuesYaml(decl) };
  for (const [file, text] of Object.entries(knativeTemplates(decl))) out[join(CHART_DIR, 'templates', 'knative', file)] = text;
  out[join(CHART_DIR, 'templates', 'standalone', 'rbac.yaml')] = standaloneRbacTemplate(decl);
  return out;
}

export function writeChart(decl: Declaration): string[] {
  const files = chartFiles(decl);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(REPO_ROOT, file)), { recursive: true });
    writeFileSync(join(REPO_ROOT, file), text);
  }
  return Object.keys(files);
}
