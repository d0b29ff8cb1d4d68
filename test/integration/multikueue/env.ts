// Three real control planes for the MultiKueue tests: a manager (Kueue CRDs, the MultiKueue
// objects, a kubeconfig Secret for worker-1 and a Path for worker-2) and two workers, each
// with its own garbage collector and job controller, and kwok running the copies' pods.
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { BatchV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { pino } from 'pino';
import { startCluster, upstreamCrdsDir, type Cluster } from '../../harness/index.js';
import { startRuntime, type Runtime } from '../../../shared/runtime/runtime.js';
import { writePolicy, type Apis } from './fixtures.js';

export type { Apis } from './fixtures.js';

export const KUEUE_NS = 'kueue-system';
const JOBSET_CRDS = fileURLToPath(new URL('./crds', import.meta.url));

export interface Env {
  manager: Apis;
  workers: [Apis, Apis];
  /** Every log line any runtime of these tests wrote. */
  logs: string[];
  runtime(env?: Record<string, string>): Promise<Runtime>;
  stop(): Promise<void>;
}

const apis = (cluster: Cluster): Apis => {
  const kc = cluster.kubeConfig();
  return { cluster, core: kc.makeApiClient(CoreV1Api), batch: kc.makeApiClient(BatchV1Api), custom: kc.makeApiClient(CustomObjectsApi) };
};

export const secretFor = (worker: Cluster) => ({
  metadata: { name: `${worker.name}-kubeconfig`, namespace: KUEUE_NS },
  stringData: { kubeconfig: readFileSync(worker.kubeconfigPath, 'utf8') },
});

export async function startEnv(): Promise<Env> {
  const crdDirs = [upstreamCrdsDir('kueue'), JOBSET_CRDS];
  const results = await Promise.allSettled(['manager', 'worker-1', 'worker-2'].map((name) => startCluster({ name, crdDirs, kwokNodes: 1, audit: true })));
  const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((c) => c.stop()));
    throw (failed as PromiseRejectedResult).reason;
  }
  const [manager, w1, w2] = started.map(apis) as [Apis, Apis, Apis];
  for (const a of [manager, w1, w2]) await a.core.createNamespace({ body: { metadata: { name: KUEUE_NS } } });

  // worker-1 through a Secret (locationType Secret), worker-2 through a file (Path).
  await manager.core.createNamespacedSecret({ namespace: KUEUE_NS, body: secretFor(w1.cluster) });
  const mkc = (name: string, kubeConfig: object) => ({
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'MultiKueueCluster',
    metadata: { name },
    spec: { clusterSource: { kubeConfig } },
  });
  const k = { group: 'kueue.x-k8s.io', version: 'v1beta2' };
  await manager.custom.createClusterCustomObject({
    ...k,
    plural: 'multikueueclusters',
    body: mkc('worker-1', { location: 'worker-1-kubeconfig', locationType: 'Secret' }),
  });
  await manager.custom.createClusterCustomObject({
    ...k,
    plural: 'multikueueclusters',
    body: mkc('worker-2', { location: w2.cluster.kubeconfigPath, locationType: 'Path' }),
  });
  await manager.custom.createClusterCustomObject({
    ...k,
    plural: 'multikueueconfigs',
    body: { apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'MultiKueueConfig', metadata: { name: 'mk' }, spec: { clusters: ['worker-1', 'worker-2'] } },
  });

  const logs: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (logs.push(String(chunk)), done()) });
  const policy = writePolicy();
  return {
    manager,
    workers: [w1, w2],
    logs,
    runtime: (env = {}) =>
      startRuntime(
        {
          POLICY_FILE: policy,
          KUBECONFIG: manager.cluster.kubeconfigPath,
          MULTIKUEUE_CONFIG: 'mk',
          MULTIKUEUE_JOB_KINDS: 'batch/v1/Job,jobset.x-k8s.io/v1alpha2/JobSet',
          MULTIKUEUE_DISCOVERY_TTL_SECONDS: '0',
          REQUEST_TIMEOUT_SECONDS: '5',
          RECORD_EVENTS: 'false',
          LOG_LEVEL: 'debug',
          ...env,
        },
        { log: pino({ level: 'debug' }, sink) },
      ),
    stop: async () => void (await Promise.all(started.map((c) => c.stop()))),
  };
}
