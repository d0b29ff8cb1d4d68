// serverless.yml -> Knative manifests. Pure: the same declaration and options always give
// the same objects, so the committed files can be checked for staleness by re-rendering.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kebab, REPO_ROOT, triggerName, type Declaration, type FunctionDecl, type RenderOptions } from '../declaration/declaration.js';

export type { RenderOptions } from '../declaration/declaration.js';
import { policyConfigMap, renderRbac } from './rbac.js';
import { knativeAudience, knativeSenderAuthEnv } from './sender-auth.js';
import { FUNCTION_MEMORY_LIMIT, IMAGE_NODE_OPTIONS } from '../bundle/heap.js';

type Obj = Record<string, unknown>;
export const BROKER = 'kube-tidy';
/** The MT channel-based broker's ingress address (Knative Eventing's broker-ingress Service). */
export const brokerUrl = (namespace: string) => `http://broker-ingress.knative-eventing.svc.cluster.local/${namespace}/${BROKER}`;
export const DEAD_LETTERS = 'dead-letters';
export const POLICY_FILE = join(REPO_ROOT, 'infra', 'knative', 'policy.yaml');

export function defaultOptions(decl: Declaration): RenderOptions {
  return { namespace: decl.provider.namespace, kueueNamespace: decl.provider.kueueNamespace, prefix: decl.service, image: decl.provider.image };
}

const serviceRef = (name: string, namespace: string) => ({ ref: { apiVersion: 'serving.knative.dev/v1', kind: 'Service', name, namespace } });

function delivery(decl: Declaration, o: RenderOptions): Obj {
  return { ...decl.provider.delivery, deadLetterSink: serviceRef(DEAD_LETTERS, o.namespace) };
}

/** A hardened container: the image runs as a non-root user and writes nothing to disk. */
function container(image: string, env: Obj[]): Obj {
  return {
    image,
    env,
    resources: { requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: FUNCTION_MEMORY_LIMIT } },
    securityContext: {
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    },
  };
}

/**
 * `eventsSink`: the default EVENTS_SINK (Knative: the broker; Cloud Run has none), first in the
 * list whatever serverless.yml's environment sets it to (a URL, `none`).
 */
export function functionEnv(decl: Declaration, target: string, f: FunctionDecl, o: RenderOptions, { eventsSink }: { eventsSink?: string } = {}): Obj[] {
  const policy = policyConfigMap(decl, target, o);
  const plain = {
    ...(eventsSink ? { EVENTS_SINK: eventsSink } : {}),
    ...decl.provider.environment,
    ...f.environment,
    FUNCTION_TARGET: target,
    // Drain for as long as a request may take (Knative waits the revision timeout).
    SHUTDOWN_TIMEOUT_SECONDS: String(f.timeout),
    // Answer (503 if unfinished) before the platform cuts the request off at its timeout.
    REQUEST_DEADLINE_SECONDS: String(Math.max(1, f.timeout - 5)),
    ...(policy ? { POLICY_CONFIGMAP: `${policy.namespace}/${policy.name}` } : {}),
    // Where its Role lets it keep its state (the evacuation ledger, sweep plans): its own namespace.
    ...(f.rbac.some((r) => r.namespace === 'own') ? { KUBE_TIDY_NAMESPACE: o.namespace } : {}),
    // Where its Role lets it read the worker Secrets.
    ...(f.rbac.some((r) => r.namespace === 'kueue') ? { KUEUE_NAMESPACE: o.kueueNamespace } : {}),
    // Where a sweep posts the shards it hands out: the broker's ingress, which a Trigger
    // (filter on the shard type) delivers back from.
    ...(f.events.some((e) => 'shards' in e) ? { SWEEP_SHARD_SINK: brokerUrl(o.namespace) } : {}),
  };
  const secret = Object.entries(f.secretEnvironment ?? {}).map(([name, s]) => ({
    name,
    valueFrom: { secretKeyRef: { name: s.secret, key: s.key, optional: true } },
  }));
  return [...Object.entries(plain).map(([name, value]) => ({ name, value })), ...secret];
}

/** Sender authentication (docs/safety.md "Sender authentication"): Knative's OIDC sender identity. */
function senderAuthEnv(decl: Declaration, target: string, f: FunctionDecl, o: RenderOptions): Obj[] {
  if (decl.provider.senderAuth.knative === 'none') return [];
  return Object.entries(knativeSenderAuthEnv(o.namespace, target, f)).map(([name, value]) => ({ name, value }));
}

function knativeService(decl: Declaration, target: string, f: FunctionDecl, o: RenderOptions): Obj {
  const visibility = f.events.some((e) => 'http' in e && e.http.visibility === 'public') ? {} : { 'networking.knative.dev/visibility': 'cluster-local' };
  return {
    apiVersion: 'serving.knative.dev/v1',
    kind: 'Service',
    metadata: {
      name: kebab(target),
      namespace: o.namespace,
      labels: { 'app.kubernetes.io/part-of': decl.service, 'kube-tidy.dev/function': target, ...visibility },
    },
    spec: {
      template: {
        metadata: { annotations: { 'autoscaling.knative.dev/min-scale': String(f.scaling.min), 'autoscaling.knative.dev/max-scale': String(f.scaling.max) } },
        spec: {
          serviceAccountName: kebab(target),
          containerConcurrency: f.scaling.concurrency,
          timeoutSeconds: f.timeout,
          // Every decision out as a CloudEvent (docs/observing.md "Decisions as CloudEvents"), to the broker: a Trigger on a dev.kube-tidy.* type routes them on.
          containers: [
            container(o.image, [
              ...functionEnv(decl, target, f, o, { eventsSink: brokerUrl(o.namespace) }),
              ...senderAuthEnv(decl, target, f, o),
              // V8's old space under the container's limit (infra/bundle/heap.ts): the image's own default, under which its code cache was warmed.
              { name: 'NODE_OPTIONS', value: IMAGE_NODE_OPTIONS },
            ]),
          ],
        },
      },
    },
  };
}

function eventing(decl: Declaration, o: RenderOptions): Obj[] {
  const labels = { 'app.kubernetes.io/part-of': decl.service };
  const broker = { apiVersion: 'eventing.knative.dev/v1', kind: 'Broker', name: BROKER, namespace: o.namespace };
  const sink = { ref: broker };
  const out: Obj[] = [
    {
      apiVersion: 'eventing.knative.dev/v1',
      kind: 'Broker',
      metadata: { name: BROKER, namespace: o.namespace, labels, annotations: { 'eventing.knative.dev/broker.class': 'MTChannelBasedBroker' } },
      spec: { delivery: delivery(decl, o) },
    },
  ];
  const src = decl.provider.sources.apiserver;
  out.push({
    apiVersion: 'sources.knative.dev/v1',
    kind: 'ApiServerSource',
    metadata: { name: 'apiserver', namespace: o.namespace, labels },
    spec: {
      mode: 'Resource',
      serviceAccountName: 'apiserver-source',
      resources: src.resources,
      ...(src.namespaceSelector ? { namespaceSelector: src.namespaceSelector } : {}),
      sink,
    },
  });
  for (const [target, f] of Object.entries(decl.functions)) {
    // With an audience the broker's filter attaches a token of the Trigger's OIDC account.
    const audience = decl.provider.senderAuth.knative === 'kubernetes' ? { audience: knativeAudience(o.namespace, target) } : {};
    const subscriber = { ...serviceRef(kebab(target), o.namespace), ...audience };
    const trigger = (name: string, attributes: Record<string, string>): Obj => ({
      apiVersion: 'eventing.knative.dev/v1',
      kind: 'Trigger',
      metadata: { name, namespace: o.namespace, labels: { ...labels, 'kube-tidy.dev/function': target } },
      spec: { broker: BROKER, filter: { attributes }, subscriber, delivery: delivery(decl, o) },
    });
    f.events.forEach((e, i) => {
      if ('cloudEvent' in e) {
        out.push(trigger(triggerName(target, e, i)!, { type: e.cloudEvent.type, kind: e.cloudEvent.kind }));
      } else if ('shards' in e) {
        out.push(trigger(triggerName(target, e, i)!, { type: e.shards.type }));
      } else if ('schedule' in e) {
        const name = `${kebab(target)}-${i}`;
        out.push({
          apiVersion: 'sources.knative.dev/v1',
          kind: 'PingSource',
          metadata: { name, namespace: o.namespace, labels },
          spec: {
            schedule: e.schedule.cron,
            ...(e.schedule.timezone ? { timezone: e.schedule.timezone } : {}),
            contentType: 'application/json',
            data: JSON.stringify({ function: target }),
            sink,
          },
        });
        out.push(trigger(triggerName(target, e, i)!, { type: 'dev.knative.sources.ping', source: `/apis/v1/namespaces/${o.namespace}/pingsources/${name}` }));
      }
    });
  }
  return out;
}

/** The manifests, file by file, in the order they are applied. */
export function renderKnative(decl: Declaration, o: RenderOptions = defaultOptions(decl)): Record<string, Obj[]> {
  const labels = { 'app.kubernetes.io/part-of': decl.service };
  const policies = new Map(
    Object.keys(decl.functions).flatMap((t) => {
      const p = policyConfigMap(decl, t, o);
      return p ? [[`${p.namespace}/${p.name}`, p] as const] : [];
    }),
  );
  const policyText = readFileSync(POLICY_FILE, 'utf8');
  return {
    '00-namespace.yaml': [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: o.namespace, labels } }],
    '10-policy.yaml': [...policies.values()].map((p) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: p.name, namespace: p.namespace, labels },
      data: { 'policy.yaml': policyText },
    })),
    '20-rbac.yaml': renderRbac(decl, o),
    '30-services.yaml': [
      ...Object.entries(decl.functions).map(([t, f]) => knativeService(decl, t, f, o)),
      {
        apiVersion: 'serving.knative.dev/v1',
        kind: 'Service',
        metadata: { name: DEAD_LETTERS, namespace: o.namespace, labels: { ...labels, 'networking.knative.dev/visibility': 'cluster-local' } },
        spec: { template: { spec: { serviceAccountName: DEAD_LETTERS, containers: [container(decl.provider.deadLetter.image, [])] } } },
      },
    ],
    '40-eventing.yaml': eventing(decl, o),
  };
}
