// The benches' workload: bare pods on kwok nodes (Running, or Failed through kwok's exit-code
// annotation), Indexed Jobs whose pods each fail once, and a policy file selecting exit 3.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BatchV1Api, CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { EXIT_CODE_ANNOTATION, waitFor } from '../harness/index.js';

const IMAGE = 'registry.k8s.io/pause:3.10';
export const SELECTED_EXIT_CODE = 3;

/** Failed pods exiting 3 are removed at once, bare ones included; nothing else is selected. `extra`: more top-level fields (limits, kubeTidy). */
export function writePolicy(extra: object = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-bench-policy-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'policy.json');
  const policy = {
    apiVersion: 'descheduler/v1alpha2',
    kind: 'DeschedulerPolicy',
    profiles: [
      {
        name: 'bench',
        pluginConfig: [
          { name: 'DefaultEvictor', args: { podProtections: { defaultDisabled: ['FailedBarePods'] } } },
          { name: 'PodLifeTime', args: { states: ['Failed'], exitCodes: [SELECTED_EXIT_CODE] } },
        ],
        plugins: { deschedule: { enabled: ['PodLifeTime'] } },
      },
    ],
    ...extra,
  };
  writeFileSync(file, JSON.stringify(policy));
  return file;
}

export async function createNamespace(core: CoreV1Api, name: string): Promise<void> {
  await core.createNamespace({ body: { metadata: { name } } });
  // The ServiceAccount admission plugin refuses pods until the default SA exists.
  await waitFor(`${name}/default ServiceAccount`, async () =>
    (await core.listNamespacedServiceAccount({ namespace: name })).items.some((s) => s.metadata?.name === 'default'),
  );
}

async function inParallel<T>(items: T[], width: number, each: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await each(items[next++]!);
    }),
  );
}

/** Creates `count` bare pods named `<prefix>-<i>`, labelled bench=<prefix>, without waiting. */
export async function createBarePods(core: CoreV1Api, namespace: string, prefix: string, count: number, exitCode?: number): Promise<void> {
  const annotations = exitCode === undefined ? undefined : { [EXIT_CODE_ANNOTATION]: String(exitCode) };
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  await inParallel(names, 16, (name) =>
    core.createNamespacedPod({
      namespace,
      body: { metadata: { name, labels: { bench: prefix }, annotations }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: IMAGE }] } },
    }),
  );
}

/**
 * Creates `count` bare pods named `<prefix>-<i>` and waits until all reached their phase:
 * Running without an exit code, Failed with a non-zero one.
 */
export async function createPods(core: CoreV1Api, namespace: string, prefix: string, count: number, exitCode?: number): Promise<V1Pod[]> {
  await createBarePods(core, namespace, prefix, count, exitCode);
  const phase = exitCode === undefined ? 'Running' : 'Failed';
  return waitFor(
    `${count} ${prefix} pods ${phase}`,
    async () => {
      const pods = (await core.listNamespacedPod({ namespace, labelSelector: `bench=${prefix}` })).items;
      return pods.length === count && pods.every((p) => p.status?.phase === phase) ? pods : undefined;
    },
    { timeoutMs: 180_000, intervalMs: 500 },
  );
}

/**
 * Indexed Jobs whose every pod fails once with `exitCode`: backoffLimitPerIndex 0 marks the
 * index failed without a replacement and without stopping the Job's other pods.
 */
export async function createFailingJobs(batch: BatchV1Api, namespace: string, jobs: number, podsPerJob: number, exitCode: number): Promise<void> {
  for (let j = 0; j < jobs; j++) {
    await batch.createNamespacedJob({
      namespace,
      body: {
        metadata: { name: `fail-${j}` },
        spec: {
          completionMode: 'Indexed',
          completions: podsPerJob,
          parallelism: podsPerJob,
          backoffLimitPerIndex: 0,
          template: {
            metadata: { annotations: { [EXIT_CODE_ANNOTATION]: String(exitCode) } },
            spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: IMAGE }] },
          },
        },
      },
    });
  }
}
