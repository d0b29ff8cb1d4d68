// Bench `e2e`: time from a pod turning terminal to its deletion through bridge + podTerminated,
// over 200 Job pods failing with a selected exit code, and where that time goes.
//   terminal = the first watch event showing phase Failed, seen by a watch in this process
//              (finishedAt has 1 s resolution; shown alongside for comparison)
//   gone     = the DELETED watch event
// Pieces, per pod deleted by an event (from the function's trace, same clock):
//   watchToRequest   terminal seen -> the deleting request reaches the function (bridge watch,
//                    its per-object queue behind the pod's earlier events, HTTP)
//   beforeDelete     request in -> DELETE sent (decode, decide)
//   deleteCall       DELETE sent -> answered
//   afterDelete      DELETE answered -> answer sent (the Kubernetes Event POST)
//   deleteToGone     DELETE sent -> DELETED seen by the watch
//   finalizerAfterDelete  DELETE sent -> the pod seen without finalizers (Job pods: the job
//                    controller's tracking finalizer, removed once it has counted the pod)
// Job pods first (the demo's shape), then bare pods (no finalizer) to isolate that share.
// The Job pods' finalizer removal shows up only as the DELETED event (an update that clears
// the last finalizer of a terminating pod deletes it, and DELETED carries the prior state).
import type { Cluster } from '../harness/index.js';
import { withCluster } from './cluster.js';
import { runEventPath, type EventPathRun } from './event-path.js';
import { writePolicy } from './pods.js';
import { spread } from './stats.js';

const JOBS = 4;
const PODS_PER_JOB = 50;

export function latencyFigures(run: EventPathRun): Record<string, unknown> {
  const pods = [...run.pods.entries()];
  const terminalToGone = pods.flatMap(([, p]) => (p.failedSeen !== undefined && p.goneSeen !== undefined ? [p.goneSeen - p.failedSeen] : []));
  const fromFinishedAt = pods.flatMap(([, p]) => (p.finishedAt !== undefined && p.goneSeen !== undefined ? [p.goneSeen - p.finishedAt] : []));
  const pieces = {
    watchToRequest: [] as number[],
    beforeDelete: [] as number[],
    deleteCall: [] as number[],
    afterDelete: [] as number[],
    deleteToGone: [] as number[],
    finalizerAfterDelete: [] as number[],
    requestsBeforeTheDeletingOne: [] as number[],
  };
  const answers = run.traces.filter((t) => t.trace === 'answer');
  for (const [key, p] of pods) {
    const answer = answers.find((a) => a.pod === key && a.outcome === 'deleted');
    if (!answer || p.failedSeen === undefined || p.goneSeen === undefined) continue;
    const [ns, name] = key.split('/') as [string, string];
    const sent = run.traces.find(
      (t) =>
        t.trace === 'kube' &&
        t.method === 'DELETE' &&
        new URL(t.url).pathname === `/api/v1/namespaces/${ns}/pods/${name}` &&
        t.t >= answer.t0 &&
        t.t <= answer.t,
    );
    const done = run.traces.find((t) => t.trace === 'deleted' && t.pod === key && sent && t.t >= sent.t);
    if (!sent || !done) continue;
    pieces.watchToRequest.push(answer.t0 - p.failedSeen);
    pieces.beforeDelete.push(sent.t - answer.t0);
    pieces.deleteCall.push(done.t - sent.t);
    pieces.afterDelete.push(answer.t - done.t);
    pieces.deleteToGone.push(p.goneSeen - sent.t);
    if (p.finalizersClearedSeen !== undefined) pieces.finalizerAfterDelete.push(p.finalizersClearedSeen - sent.t);
    pieces.requestsBeforeTheDeletingOne.push(answers.filter((a) => a.pod === key && a.t0 < answer.t0).length);
  }
  // The bridge's queue drains at the function's pace: every event is a request, most of them
  // nothing-to-do (Pending, Running, terminating, DELETED), one per pod a delete.
  const handled = answers.filter((a) => a.method === 'POST');
  const span = handled.length ? Math.max(...handled.map((a) => a.t)) - Math.min(...handled.map((a) => a.t0)) : NaN;
  return {
    workload: run.workload,
    pods: pods.length,
    bridgeConcurrency: run.bridgeConcurrency,
    terminalToGoneMs: spread(terminalToGone),
    finishedAtToGoneMs: spread(fromFinishedAt),
    ...Object.fromEntries(
      Object.entries(pieces).map(([k, v]) => [k === 'requestsBeforeTheDeletingOne' ? k : `${k}Ms`, spread(v, k === 'requestsBeforeTheDeletingOne' ? 0 : 1)]),
    ),
    functionNothingToDoMs: spread(handled.filter((a) => a.outcome === 'nothing-to-do').map((a) => a.t - a.t0)),
    functionDeletingMs: spread(handled.filter((a) => a.outcome === 'deleted').map((a) => a.t - a.t0)),
    requestsPerSecondOverRun: Math.round((handled.length / span) * 1000),
    terminatingBeforeGone: pods.filter(([, p]) => p.terminatingSeen !== undefined).length,
    withFinalizers: pods.filter(([, p]) => p.hadFinalizers).length,
    watchEventsPerPod: spread(
      pods.map(([, p]) => p.watchEvents),
      0,
    ),
    bridge: {
      delivered: run.bridge.delivered,
      retries: run.bridge.retries,
      rejected: run.bridge.rejected,
      failed: run.bridge.failed,
      dropped: run.bridge.dropped,
      received: run.bridge.received,
    },
  };
}

async function once(
  cluster: Cluster,
  policy: string,
  namespace: string,
  workload: 'jobs' | 'bare-pods',
  bridgeConcurrency: number,
  jobs = JOBS,
  podsPerJob = PODS_PER_JOB,
) {
  return latencyFigures(await runEventPath(cluster, policy, { namespace, workload, jobs, podsPerJob, bridgeConcurrency }));
}

export async function runE2eBench(): Promise<object> {
  return withCluster('bench-e2e', 4, async (cluster) => {
    const policy = writePolicy();
    // The bridge's default concurrency (the demo's); bare pods to take the job controller out.
    return {
      jobs: await once(cluster, policy, 'e2e-jobs', 'jobs', 4),
      barePods: await once(cluster, policy, 'e2e-bare', 'bare-pods', 4),
      barePodsBridge16: await once(cluster, policy, 'e2e-bare16', 'bare-pods', 16),
      // A small Job: is the Job pods' wait a per-pod cost or the job controller's throughput?
      jobs20: await once(cluster, policy, 'e2e-jobs20', 'jobs', 4, 1, 20),
    };
  });
}
