// Bench `requests`: API requests kube-tidy makes, counted exactly on the client side (the
// onRequest hook of kubeClients, traced by the function process), by verb and resource.
//   event path: 100 Job pods failing with exit 3 through bridge + podTerminated; requests per
//               cleaned pod, with the Kubernetes Event per pod (default) and RECORD_EVENTS=false
//   sweep:      500 selected Failed pods, 100 unselected Failed (exit 1) and 100 Running pods,
//               SWEEP_PAGE_SIZE=100; requests = LIST pages + one DELETE per selected pod (+ Events)
import { CoreV1Api } from '@kubernetes/client-node';
import type { Cluster } from '../harness/index.js';
import { withCluster } from './cluster.js';
import { countBy, requestKind, runEventPath } from './event-path.js';
import { TRACED_ENTRY, withFunction, type Trace } from './function-process.js';
import { createNamespace, createPods, SELECTED_EXIT_CODE, writePolicy } from './pods.js';

const EVENT_PODS = { jobs: 2, podsPerJob: 50 };
const SWEEP = { selected: 500, unselectedFailed: 100, running: 100, pageSize: 100 };

type KubeTrace = Extract<Trace, { trace: 'kube' }>;
const kubeTraces = (traces: Trace[]) => traces.filter((t): t is KubeTrace => t.trace === 'kube');

async function eventPath(cluster: Cluster, policy: string, namespace: string, recordEvents: boolean) {
  const run = await runEventPath(cluster, policy, { namespace, workload: 'jobs', ...EVENT_PODS, env: { RECORD_EVENTS: String(recordEvents) } });
  const requests = kubeTraces(run.traces);
  const answers = run.traces.filter((t): t is Extract<Trace, { trace: 'answer' }> => t.trace === 'answer' && t.method === 'POST');
  const cleaned = answers.filter((a) => a.outcome === 'deleted').length;
  return {
    recordEvents,
    pods: run.pods.size,
    cleaned,
    eventsDelivered: run.bridge.delivered,
    answers: countBy(answers, (a) => (a.status === 200 ? String(a.outcome) : `http ${a.status}`)),
    requests: requests.length,
    byKind: countBy(requests, (r) => requestKind(r.method, r.url)),
    requestsPerCleanedPod: Math.round((requests.length / cleaned) * 1000) / 1000,
  };
}

async function sweep(cluster: Cluster, policy: string, recordEvents: boolean, round: number) {
  const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
  await createPods(core, 'sweep', `selected-${round}`, SWEEP.selected, SELECTED_EXIT_CODE);
  const env = { POLICY_FILE: policy, KUBECONFIG: cluster.kubeconfigPath, SWEEP_PAGE_SIZE: String(SWEEP.pageSize), RECORD_EVENTS: String(recordEvents) };
  return withFunction('sweep', TRACED_ENTRY, env, async (fn) => {
    const res = await fetch(fn.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const body = (await res.json()) as {
      summary: {
        pages: number;
        podsSeen: number;
        selected: number;
        requests: number;
        outcomes: Record<string, number>;
        fieldSelector?: string;
        durationMs: number;
      };
    };
    const requests = kubeTraces(fn.traces);
    const s = body.summary;
    return {
      recordEvents,
      podsInCluster: SWEEP.selected + SWEEP.unselectedFailed + SWEEP.running,
      pageSize: SWEEP.pageSize,
      fieldSelector: s.fieldSelector,
      podsSeen: s.podsSeen,
      pages: s.pages,
      selected: s.selected,
      outcomes: s.outcomes,
      requests: requests.length,
      byKind: countBy(requests, (r) => requestKind(r.method, r.url)),
      expected: s.pages + s.selected * (recordEvents ? 2 : 1),
      summaryRequests: s.requests,
      durationMs: s.durationMs,
    };
  });
}

export async function runRequestsBench(): Promise<object> {
  return withCluster('bench-requests', 10, async (cluster) => {
    const policy = writePolicy();
    const withEvents = await eventPath(cluster, policy, 'ev-events', true);
    const withoutEvents = await eventPath(cluster, policy, 'ev-noevents', false);
    const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
    await createNamespace(core, 'sweep');
    await createPods(core, 'sweep', 'running', SWEEP.running);
    await createPods(core, 'sweep', 'unselected', SWEEP.unselectedFailed, 1);
    const sweepWithEvents = await sweep(cluster, policy, true, 1);
    const sweepWithoutEvents = await sweep(cluster, policy, false, 2);
    return { eventPathWithEvents: withEvents, eventPathWithoutEvents: withoutEvents, sweepWithEvents, sweepWithoutEvents };
  });
}
