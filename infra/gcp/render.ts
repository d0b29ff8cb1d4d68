// serverless.yml -> the GCP path: one Cloud Run service per function (the same image, gen2
// execution environment), Cloud Scheduler jobs for schedules (OIDC-authenticated HTTP), and
// Eventarc Pub/Sub triggers for cluster events. Cloud Run's service YAML is the Knative
// Service schema, so the integration test validates it against the Knative CRD.
// PROJECT_ID and REGION stay as ${...} placeholders that deploy.sh fills in with envsubst.
import { kebab, type Declaration, type FunctionDecl } from '../declaration/declaration.js';
import { functionEnv } from '../knative/render.js';
import { IMAGE_NODE_OPTIONS } from '../bundle/heap.js';
import { googleSenderAuthEnv, SA, serviceUrl } from './sender-auth.js';

type Obj = Record<string, unknown>;
export const IMAGE = '${REGION}-docker.pkg.dev/${PROJECT_ID}/kube-tidy/kube-tidy';
/** Topic per watched kind: Eventarc filters Pub/Sub only by the message type, so the topic routes. */
export const topicFor = (kind: string) => `kube-tidy-${kind.toLowerCase()}-events`;
/** Where a function publishes its own shards (docs/scale.md): on GCP, Pub/Sub plays the broker. */
export const shardTopicFor = (target: string) => `kube-tidy-${kebab(target)}-shards`;
const topicPath = (topic: string) => `projects/\${PROJECT_ID}/topics/${topic}`;
export const POLICY_MOUNT = '/etc/kube-tidy/policy';
export const KUBECONFIG_MOUNT = '/etc/kube-tidy/kubeconfig';

function service(decl: Declaration, target: string, f: FunctionDecl): Obj {
  const google = decl.provider.senderAuth.gcp === 'google';
  const tag = decl.provider.image.split(':').pop();
  // The cluster is reached with a kubeconfig (a ServiceAccount token of the same least-RBAC
  // account infra/knative creates) and the policy from a file, both from Secret Manager.
  const shards = f.events.some((e) => 'shards' in e);
  const env = functionEnv(decl, target, f, {
    namespace: decl.provider.namespace,
    kueueNamespace: decl.provider.kueueNamespace,
    prefix: decl.service,
    image: '',
  })
    // No broker on Cloud Run: shards go to the function's own Pub/Sub topic instead.
    .filter((e) => e.name !== 'POLICY_CONFIGMAP' && e.name !== 'SWEEP_SHARD_SINK')
    .concat([
      { name: 'POLICY_FILE', value: `${POLICY_MOUNT}/policy.yaml` },
      { name: 'KUBECONFIG', value: `${KUBECONFIG_MOUNT}/kubeconfig` },
    ])
    .concat(shards ? [{ name: 'SWEEP_SHARD_TOPIC', value: topicPath(shardTopicFor(target)) }] : [])
    .concat(google ? Object.entries(googleSenderAuthEnv(target, f)).map(([name, value]) => ({ name, value })) : [])
    // The image's heap flag (infra/bundle/heap.ts), sized for 256Mi: 60% of 512Mi would be another
    // V8 flag, and V8 would then refuse the code cache warmed into the image and compile every cold start.
    .concat([{ name: 'NODE_OPTIONS', value: IMAGE_NODE_OPTIONS }]);
  return {
    apiVersion: 'serving.knative.dev/v1',
    kind: 'Service',
    metadata: {
      name: `kube-tidy-${kebab(target)}`,
      labels: { 'cloud.googleapis.com/location': '${REGION}' },
      // Internal: only the VPC, Eventarc and Scheduler reach it. Who may call is checked by
      // kube-tidy itself (sender-auth.ts): Cloud Run's IAM check would strip the signature.
      annotations: { 'run.googleapis.com/ingress': 'internal', ...(google ? { 'run.googleapis.com/invoker-iam-disabled': 'true' } : {}) },
    },
    spec: {
      template: {
        metadata: {
          annotations: {
            'run.googleapis.com/execution-environment': 'gen2',
            'run.googleapis.com/startup-cpu-boost': 'true',
            'autoscaling.knative.dev/minScale': String(f.scaling.min),
            'autoscaling.knative.dev/maxScale': String(f.scaling.max),
          },
        },
        spec: {
          serviceAccountName: SA(kebab(target)),
          containerConcurrency: f.scaling.concurrency,
          timeoutSeconds: f.timeout,
          containers: [
            {
              image: `${IMAGE}:${tag}`,
              ports: [{ name: 'http1', containerPort: 8080 }],
              env,
              resources: { limits: { cpu: '1', memory: '512Mi' } },
              volumeMounts: [
                { name: 'policy', mountPath: POLICY_MOUNT, readOnly: true },
                { name: 'kubeconfig', mountPath: KUBECONFIG_MOUNT, readOnly: true },
              ],
            },
          ],
          volumes: [
            { name: 'policy', secret: { secretName: 'kube-tidy-policy', items: [{ key: 'latest', path: 'policy.yaml' }] } },
            { name: 'kubeconfig', secret: { secretName: 'kube-tidy-kubeconfig', items: [{ key: 'latest', path: 'kubeconfig' }] } },
          ],
        },
      },
    },
  };
}

/**
 * A schedule declared `as: ping`: the job's POST is a PingSource CloudEvent in binary mode (its
 * id the job's: each delivery is a tick like any other), so a function that reads a plain POST
 * as a pod (podTerminated) takes it as its tick.
 */
export const pingHeaders = (job: string): Record<string, string> => ({
  'ce-specversion': '1.0',
  'ce-type': 'dev.knative.sources.ping',
  'ce-source': `//cloudscheduler.googleapis.com/${job}`,
  'ce-id': job.split('/').pop()!,
});

/** Cloud Scheduler REST `Job`: POST to the service with an OIDC token Cloud Run checks. */
function schedulerJob(target: string, f: FunctionDecl, i: number, cron: string, timezone?: string, as?: 'ping'): Obj {
  const uri = serviceUrl(target);
  const name = `projects/\${PROJECT_ID}/locations/\${REGION}/jobs/kube-tidy-${kebab(target)}-${i}`;
  return {
    name,
    schedule: cron,
    timeZone: timezone ?? 'Etc/UTC',
    attemptDeadline: `${Math.min(1800, f.timeout + 30)}s`,
    retryConfig: { retryCount: 3, minBackoffDuration: '5s', maxBackoffDuration: '60s' },
    httpTarget: {
      uri,
      httpMethod: 'POST',
      headers: { 'Content-Type': 'application/json', ...(as === 'ping' ? pingHeaders(name) : {}) },
      body: Buffer.from('{}').toString('base64'),
      oidcToken: { serviceAccountEmail: SA('scheduler'), audience: uri },
    },
  };
}

/** Eventarc REST `Trigger` for a Pub/Sub topic, delivered to the Cloud Run service. */
function eventarcTrigger(target: string, suffix: string, topic: string): Obj {
  return {
    name: `projects/\${PROJECT_ID}/locations/\${REGION}/triggers/kube-tidy-${kebab(target)}-${suffix}`,
    eventFilters: [{ attribute: 'type', value: 'google.cloud.pubsub.topic.v1.messagePublished' }],
    destination: { cloudRun: { service: `kube-tidy-${kebab(target)}`, region: '${REGION}', path: '/' } },
    transport: { pubsub: { topic: topicPath(topic) } },
    serviceAccount: SA('eventarc'),
  };
}

export function renderGcp(decl: Declaration): { services: Record<string, Obj>; scheduler: Record<string, Obj>; eventarc: Record<string, Obj> } {
  const out = { services: {} as Record<string, Obj>, scheduler: {} as Record<string, Obj>, eventarc: {} as Record<string, Obj> };
  for (const [target, f] of Object.entries(decl.functions)) {
    out.services[kebab(target)] = service(decl, target, f);
    const kinds = new Set<string>();
    f.events.forEach((e, i) => {
      if ('schedule' in e) out.scheduler[`${kebab(target)}-${i}`] = schedulerJob(target, f, i, e.schedule.cron, e.schedule.timezone, e.schedule.as);
      if ('cloudEvent' in e) kinds.add(e.cloudEvent.kind);
      if ('shards' in e) out.eventarc[`${kebab(target)}-shards`] = eventarcTrigger(target, 'shards', shardTopicFor(target));
    });
    for (const kind of kinds) out.eventarc[`${kebab(target)}-${kind.toLowerCase()}`] = eventarcTrigger(target, kind.toLowerCase(), topicFor(kind));
  }
  return out;
}
