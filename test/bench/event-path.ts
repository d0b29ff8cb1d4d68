// The event path as the demo runs it, instrumented: Indexed Jobs whose pods fail with a
// selected exit code; the bridge (in this process) posting Knative CloudEvents to podTerminated
// (a traced functions-framework process); a watch of our own timing each pod's terminal and
// gone moments. Shared by the e2e and requests benches.
import { BatchV1Api, CoreV1Api, Watch, type V1Pod } from '@kubernetes/client-node';
import { startBridge, silentLogger, type BridgeStats } from '../../shared/hosts/bridge/index.js';
import type { Cluster } from '../harness/index.js';
import { waitFor } from '../harness/index.js';
import { TRACED_ENTRY, withFunction, type Trace } from './function-process.js';
import { createBarePods, createFailingJobs, createNamespace, SELECTED_EXIT_CODE } from './pods.js';
import { nowMs } from './stats.js';

export interface PodTimes {
  /** First watch event showing phase Failed (this process's clock, ms). */
  failedSeen?: number;
  /** status.containerStatuses[0].state.terminated.finishedAt (1 s resolution). */
  finishedAt?: number;
  /** First watch event carrying a deletionTimestamp (absent: deleted at once). */
  terminatingSeen?: number;
  /** First watch event without finalizers after one with them (Job pods: the job controller
   *  removing batch.kubernetes.io/job-tracking once it has counted the pod). */
  finalizersClearedSeen?: number;
  hadFinalizers?: boolean;
  /** The DELETED watch event. */
  goneSeen?: number;
  /** Watch events seen for the pod, the DELETED one included. */
  watchEvents: number;
}

export interface EventPathRun {
  pods: Map<string, PodTimes>;
  traces: Trace[];
  bridge: BridgeStats;
  bridgeConcurrency: number;
  workload: EventPathOptions['workload'];
}

export interface EventPathOptions {
  namespace: string;
  /** Indexed Jobs (with the job controller's tracking finalizer) or bare pods. */
  workload: 'jobs' | 'bare-pods';
  jobs: number;
  podsPerJob: number;
  /** Extra environment for the function (e.g. RECORD_EVENTS=false). */
  env?: Record<string, string>;
  bridgeConcurrency?: number;
  /** Bare pods created one at a time, this far apart (ms): failures that arrive sparsely. */
  spacingMs?: number;
  /** When the run is over (default: every pod gone); e.g. when pods are deferred and stay. */
  until?: (pods: Map<string, PodTimes>, traces: readonly Trace[]) => boolean;
  /** Quiet time before the function is stopped, once the bridge drained (default 1 s). */
  lingerMs?: number;
}

export async function runEventPath(cluster: Cluster, policyFile: string, o: EventPathOptions): Promise<EventPathRun> {
  const kc = cluster.kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  await createNamespace(core, o.namespace);
  const total = o.jobs * o.podsPerJob;
  const pods = new Map<string, PodTimes>();
  const onEvent = (type: string, pod: V1Pod) => {
    const t = nowMs();
    const key = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    let p = pods.get(key);
    if (!p) pods.set(key, (p = { watchEvents: 0 }));
    p.watchEvents++;
    if (pod.status?.phase === 'Failed' && p.failedSeen === undefined) {
      p.failedSeen = t;
      const finished = pod.status.containerStatuses?.[0]?.state?.terminated?.finishedAt;
      if (finished) p.finishedAt = new Date(finished).getTime();
    }
    if (pod.metadata?.deletionTimestamp && p.terminatingSeen === undefined && type !== 'DELETED') p.terminatingSeen = t;
    const finalizers = pod.metadata?.finalizers?.length ?? 0;
    if (finalizers > 0) p.hadFinalizers = true;
    else if (p.hadFinalizers && p.finalizersClearedSeen === undefined) p.finalizersClearedSeen = t;
    if (type === 'DELETED') p.goneSeen = t;
  };
  const watch = await new Watch(kc).watch(`/api/v1/namespaces/${o.namespace}/pods`, {}, onEvent, () => {});
  const bridgeConcurrency = o.bridgeConcurrency ?? 4;
  try {
    return await withFunction('podTerminated', TRACED_ENTRY, { POLICY_FILE: policyFile, KUBECONFIG: cluster.kubeconfigPath, ...o.env }, async (fn) => {
      const bridge = await startBridge({
        kubeConfig: kc,
        sink: fn.url,
        kinds: ['Pod'],
        namespace: o.namespace,
        log: silentLogger,
        statsIntervalMs: 0,
        concurrency: bridgeConcurrency,
      });
      try {
        if (o.workload === 'jobs') await createFailingJobs(kc.makeApiClient(BatchV1Api), o.namespace, o.jobs, o.podsPerJob, SELECTED_EXIT_CODE);
        else if (o.spacingMs === undefined) await createBarePods(core, o.namespace, 'bare', total, SELECTED_EXIT_CODE);
        else {
          for (let i = 0; i < total; i++) {
            if (i > 0) await new Promise((r) => setTimeout(r, o.spacingMs));
            await createBarePods(core, o.namespace, `bare${i}`, 1, SELECTED_EXIT_CODE);
          }
        }
        const gone = () => [...pods.values()].filter((p) => p.goneSeen !== undefined).length;
        const over = o.until ? () => o.until!(pods, fn.traces) : () => gone() >= total;
        await waitFor(o.until ? 'the run to settle' : `${total} pods failed and gone`, async () => over(), { timeoutMs: 240_000, intervalMs: 200 });
        // Let the last events (the DELETEDs, late updates) reach the function.
        await waitFor('bridge drained', async () => bridge.stats().waiting === 0 && bridge.stats().running === 0, { timeoutMs: 60_000 });
        await new Promise((r) => setTimeout(r, o.lingerMs ?? 1000));
        await waitFor('bridge drained', async () => bridge.stats().waiting === 0 && bridge.stats().running === 0, { timeoutMs: 60_000 });
      } finally {
        await bridge.stop({ deadlineMs: 5000 });
      }
      return { pods, traces: [...fn.traces], bridge: bridge.stats(), bridgeConcurrency, workload: o.workload };
    });
  } finally {
    watch.abort();
  }
}

/** "DELETE pods", "POST events": the verb and the resource of a request URL. */
export function requestKind(method: string, url: string): string {
  const path = new URL(url).pathname;
  const m = /^\/(?:api\/v1|apis\/[^/]+\/[^/]+)(?:\/namespaces\/[^/]+)?\/([^/]+)/.exec(path);
  return `${method} ${m?.[1] ?? path}`;
}

export function countBy<T>(items: T[], key: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of items) out[key(i)] = (out[key(i)] ?? 0) + 1;
  return out;
}
