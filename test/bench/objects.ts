// Finished Jobs removed, side by side with the anchor the issue names: the Job TTL controller
// (kube-controller-manager v1.37.2, the real one). N Jobs finish with no TTL (what people ask
// for: kube-tidy's case); then
//  - ttl: the common workaround, `ttlSecondsAfterFinished: 0` patched into each, and the TTL
//    controller deletes them (Background): time from the first patch to the last Job gone;
//  - kube-tidy: one sweep with a rule `kind: Job, minAge: 0s, mode: delete` (in process, through
//    the target every transport shares): time from the request to the last Job gone, the pass's
//    own duration, its CPU, and its requests (counted as its clients send them).
// The pods go with their Jobs in both (Background); the timing stops at the Jobs.
import { BatchV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { sweep } from '../../functions/sweep.js';
import type { TickEvent } from '../../shared/cloudevents/index.js';
import { kubeClients } from '../../shared/kube/index.js';
import { startRuntime } from '../../shared/runtime/runtime.js';
import { resolveContextOf, resolver } from '../../shared/serve/resolve.js';
import { EXIT_CODE_ANNOTATION, waitFor } from '../harness/index.js';
import { withCluster } from './cluster.js';
import { createNamespace } from './pods.js';

const batchOf = (kc: KubeConfig) => kc.makeApiClient(BatchV1Api);

export async function finishedJobs(kc: KubeConfig, namespace: string, n: number): Promise<void> {
  const batch = batchOf(kc);
  for (let i = 0; i < n; i += 20)
    await Promise.all(
      Array.from({ length: Math.min(20, n - i) }, (_, k) =>
        batch.createNamespacedJob({
          namespace,
          body: {
            metadata: { name: `job-${i + k}` },
            spec: {
              backoffLimit: 0,
              template: {
                metadata: { annotations: { [EXIT_CODE_ANNOTATION]: '0' } },
                spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
              },
            },
          },
        }),
      ),
    );
  await waitFor(
    `${n} Jobs Complete in ${namespace}`,
    async () => {
      const jobs = (await batch.listNamespacedJob({ namespace })).items;
      return jobs.filter((j) => j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')).length === n ? true : undefined;
    },
    { timeoutMs: 15 * 60_000, intervalMs: 1000 },
  );
}

async function allGone(kc: KubeConfig, namespace: string): Promise<number> {
  await waitFor(`the Jobs of ${namespace} gone`, async () => ((await batchOf(kc).listNamespacedJob({ namespace })).items.length === 0 ? true : undefined), {
    timeoutMs: 15 * 60_000,
    intervalMs: 50,
  });
  return performance.now();
}

async function viaTtl(kc: KubeConfig, namespace: string, n: number) {
  const batch = batchOf(kc);
  const start = performance.now();
  for (let i = 0; i < n; i += 20)
    await Promise.all(
      Array.from({ length: Math.min(20, n - i) }, (_, k) =>
        // client-node sends a list body as a JSON patch (application/json-patch+json).
        batch.patchNamespacedJob({ namespace, name: `job-${i + k}`, body: [{ op: 'add', path: '/spec/ttlSecondsAfterFinished', value: 0 }] }),
      ),
    );
  const patched = performance.now();
  const gone = await allGone(kc, namespace);
  return { patchMs: Math.round(patched - start), goneMs: Math.round(gone - start) };
}

async function viaKubeTidy(kubeconfig: string, kc: KubeConfig, namespace: string, n: number) {
  const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-bench-objects-')), 'policy.json');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'descheduler/v1alpha2',
      kind: 'DeschedulerPolicy',
      profiles: [],
      kubeTidy: { objects: [{ name: 'finished-jobs', kind: 'Job', minAge: '0s', mode: 'delete', namespaces: { include: [namespace] } }] },
    }),
  );
  let requests = 0;
  const clients = kubeClients(kc, { onRequest: () => void requests++ });
  const rt = await startRuntime(
    { POLICY_FILE: file, KUBECONFIG: kubeconfig, BRAKES_NAMESPACE: 'kube-tidy-bench', REQUEST_DEADLINE_SECONDS: '300' },
    { log: pino({ level: 'silent' }), kubeConfig: kc, clients },
  );
  const parts = await sweep.setup(rt);
  const resolve = resolver(sweep, parts, resolveContextOf(rt));
  const tick: TickEvent = { type: 'tick', data: {}, origin: { bridge: 'knative-pingsource', transport: 'plain' } };
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const answer = (await resolve.event(tick)).body as { objects?: { outcomes: Record<string, number> } };
  const passMs = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  const gone = await allGone(kc, namespace);
  if (answer.objects?.outcomes.deleted !== n) throw new Error(`kube-tidy deleted ${JSON.stringify(answer.objects?.outcomes)} of ${n}`);
  return { passMs: Math.round(passMs), goneMs: Math.round(gone - start), cpuMs: Math.round((cpu.user + cpu.system) / 1000), requests };
}

export async function runObjectsBench(n = 200) {
  return withCluster('bench-objects', 2, async (cluster) => {
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await createNamespace(core, 'ttl');
    await createNamespace(core, 'tidy');
    await Promise.all([finishedJobs(kc, 'ttl', n), finishedJobs(kc, 'tidy', n)]);
    const ttl = await viaTtl(kc, 'ttl', n);
    const tidy = await viaKubeTidy(cluster.kubeconfigPath, kc, 'tidy', n);
    return { jobs: n, ttlController: ttl, kubeTidy: tidy, perJobCpuMs: +(tidy.cpuMs / n).toFixed(2) };
  });
}
