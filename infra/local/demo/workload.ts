// The demo workload: what a busy batch/ML cluster produces, in miniature.
import type { AppsV1Api, BatchV1Api, CoreV1Api, PolicyV1Api } from '@kubernetes/client-node';
import { EXIT_CODE_ANNOTATION, REASON_ANNOTATION } from '../../../test/harness/kwok-annotations.js';

// Never pulled: kwok plays the kubelet.
const IMAGE = 'registry.k8s.io/pause:3.10';

export const NS = { batch: 'demo-batch', web: 'demo-web', protected: 'demo-protected' } as const;

export interface Expectation {
  /** Pod name prefix. */
  prefix: string;
  namespace: string;
  /** How its pods end (story.ts fateOf): on-time is removed at its eligibility by podTerminated's timer. */
  expect: 'deleted' | 'kept' | 'blocked' | 'swept' | 'on-time';
  story: string;
}

export const EXPECTED: Expectation[] = [
  { prefix: 'bad-input', namespace: NS.batch, expect: 'deleted', story: 'exit 3 (bad input data): removed at once' },
  { prefix: 'oom', namespace: NS.batch, expect: 'deleted', story: 'OOMKilled, exit 137: removed at once' },
  { prefix: 'sigterm', namespace: NS.batch, expect: 'deleted', story: 'exit 143 (SIGTERM): removed at once' },
  { prefix: 'flaky', namespace: NS.batch, expect: 'kept', story: 'exit 1: kept for debugging' },
  {
    prefix: 'trainer',
    namespace: NS.batch,
    expect: 'on-time',
    story: "Succeeded: kept 20 s, scheduled for that time when it ended, then deleted by podTerminated's timer at eligibility (not left to the sweep)",
  },
  { prefix: 'old-report', namespace: NS.batch, expect: 'swept', story: 'Succeeded before the bridge started: only the sweep sees it' },
  { prefix: 'web', namespace: NS.web, expect: 'blocked', story: 'crash-looping under a PodDisruptionBudget: eviction refused, never deleted' },
  { prefix: 'audit', namespace: NS.protected, expect: 'kept', story: 'exit 3 in a protected namespace: never touched' },
  { prefix: 'node-agent', namespace: 'kube-system', expect: 'kept', story: 'exit 3 in kube-system: never touched' },
];

function job(name: string, count: number, exitCode: number, reason?: string) {
  const annotations: Record<string, string> = { [EXIT_CODE_ANNOTATION]: String(exitCode), ...(reason ? { [REASON_ANNOTATION]: reason } : {}) };
  return {
    metadata: { name },
    spec: {
      parallelism: count,
      completions: count,
      backoffLimit: 0,
      template: { metadata: { annotations }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: IMAGE }] } },
    },
  };
}

function barePod(name: string, exitCode: number) {
  return {
    metadata: { name, annotations: { [EXIT_CODE_ANNOTATION]: String(exitCode) } },
    spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: IMAGE }] },
  };
}

export interface Apis {
  core: CoreV1Api;
  batch: BatchV1Api;
  apps: AppsV1Api;
  policy: PolicyV1Api;
}

export async function createNamespaces(api: Apis): Promise<void> {
  for (const name of Object.values(NS)) await api.core.createNamespace({ body: { metadata: { name } } });
}

/** Before the bridge starts: its events are never seen, as with Knative's ApiServerSource. */
export async function createBeforeBridge(api: Apis): Promise<void> {
  await api.batch.createNamespacedJob({ namespace: NS.batch, body: job('old-report', 1, 0) });
}

export async function createWorkload(api: Apis): Promise<void> {
  await api.batch.createNamespacedJob({ namespace: NS.batch, body: job('bad-input', 3, 3) });
  await api.batch.createNamespacedJob({ namespace: NS.batch, body: job('oom', 2, 137, 'OOMKilled') });
  await api.batch.createNamespacedJob({ namespace: NS.batch, body: job('sigterm', 1, 143) });
  await api.batch.createNamespacedJob({ namespace: NS.batch, body: job('flaky', 2, 1) });
  await api.batch.createNamespacedJob({ namespace: NS.batch, body: job('trainer', 2, 0) });
  await api.core.createNamespacedPod({ namespace: NS.protected, body: barePod('audit', 3) });
  await api.core.createNamespacedPod({ namespace: 'kube-system', body: barePod('node-agent', 3) });
  await api.apps.createNamespacedDeployment({
    namespace: NS.web,
    body: {
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image: IMAGE }] } },
      },
    },
  });
  await api.policy.createNamespacedPodDisruptionBudget({
    namespace: NS.web,
    body: { metadata: { name: 'web' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } } },
  });
}

/**
 * kwok's pods do not crash; make one web pod look like the kubelet reports a crash loop
 * (the status subresource is what the kubelet writes too).
 */
export async function crashLoop(api: Apis, name: string): Promise<void> {
  const pod = await api.core.readNamespacedPodStatus({ namespace: NS.web, name });
  const statuses = (pod.status?.containerStatuses ?? []).map((cs) => ({
    ...cs,
    ready: false,
    started: false,
    restartCount: 12,
    state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container' } },
  }));
  await api.core.replaceNamespacedPodStatus({ namespace: NS.web, name, body: { ...pod, status: { ...pod.status, containerStatuses: statuses } } });
}
