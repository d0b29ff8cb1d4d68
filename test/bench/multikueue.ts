// Bench `multikueue`: a manager and two workers (three real control planes). 50 Jobs, each
// with a copy in both workers (one Running pod per copy, on kwok). For each Job, one at a
// time: delete it in the manager, post the Knative resource.delete CloudEvent to jobDeleted
// (what ApiServerSource would send; served in this process by functions-framework's test
// server), and time until the last of its worker pods is gone (a watch in each worker).
// Also: API requests per Job (manager and workers, counted by the clients' request hook).
// Run: npm run bench multikueue
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { Watch, type V1Pod } from '@kubernetes/client-node';
import supertest from 'supertest';
import { jobDeleted } from '../../functions/job-deleted.js';
import { serveTarget } from '../../shared/serve/http/functions-framework.js';
import { JOB_NAME_LABEL, multiKueueParts } from '../../shared/multikueue/index.js';
import { startEnv } from '../integration/multikueue/env.js';
import { copyJob, deleteEvent, managerJob, post } from '../integration/multikueue/fixtures.js';
import { nowMs, spread } from './stats.js';

const JOBS = 50;
const NS = 'bench-mk';

export async function runMultiKueueBench(): Promise<object> {
  const env = await startEnv();
  const aborts: AbortController[] = [];
  try {
    for (const a of [env.manager, ...env.workers]) await a.core.createNamespace({ body: { metadata: { name: NS } } });
    const names = Array.from({ length: JOBS }, (_, i) => `job-${String(i).padStart(2, '0')}`);
    const jobs = [];
    for (let i = 0; i < JOBS; i += 10) {
      jobs.push(
        ...(await Promise.all(
          names.slice(i, i + 10).map(async (name) => {
            const job = await managerJob(env.manager, NS, name);
            await Promise.all(env.workers.map((w) => copyJob(w, NS, name, { pods: 1 })));
            return job;
          }),
        )),
      );
    }
    // The moment each pod's DELETED event arrives, per Job name.
    const gone = new Map<string, number[]>();
    for (const w of env.workers) {
      aborts.push(
        await new Watch(w.cluster.kubeConfig()).watch(
          `/api/v1/namespaces/${NS}/pods`,
          {},
          (type: string, pod: V1Pod) => {
            const job = pod.metadata?.labels?.[JOB_NAME_LABEL];
            if (type === 'DELETED' && job) gone.set(job, [...(gone.get(job) ?? []), nowMs()]);
          },
          () => {},
        ),
      );
    }

    let requests = 0;
    const rt = await env.runtime({ MULTIKUEUE_DISCOVERY_TTL_SECONDS: '10', LOG_LEVEL: 'warn' });
    http('bench-jobDeleted', serveTarget(jobDeleted, multiKueueParts(rt, { onRequest: () => void requests++ }), rt));
    const agent = supertest(getTestServer('bench-jobDeleted'));

    const latencies: number[] = [];
    const perJobRequests: number[] = [];
    const fnMs: number[] = [];
    for (const job of jobs) {
      const name = job.metadata!.name!;
      const t0 = nowMs();
      await env.manager.batch.deleteNamespacedJob({ namespace: NS, name, propagationPolicy: 'Background' });
      const before = requests;
      const sent = nowMs();
      const res = await post(agent, deleteEvent(env.manager, { apiVersion: 'batch/v1', kind: 'Job', ...job }));
      fnMs.push(nowMs() - sent);
      perJobRequests.push(requests - before);
      if (res.status !== 200) throw new Error(`jobDeleted answered ${res.status}: ${JSON.stringify(res.body)}`);
      const deadline = Date.now() + 30_000;
      while ((gone.get(name)?.length ?? 0) < 2) {
        if (Date.now() > deadline) throw new Error(`pods of ${name} not gone after 30 s`);
        await new Promise((r) => setTimeout(r, 5));
      }
      latencies.push(Math.max(...gone.get(name)!) - t0);
    }
    return {
      setup: `${JOBS} Jobs, a copy in each of 2 workers (1 Running pod each), one Job at a time, discovery TTL 10 s`,
      deletionToLastPodGoneMs: spread(latencies),
      jobDeletedAnswerMs: spread(fnMs),
      apiRequestsPerJob: spread(perJobRequests, 2),
      apiRequestsPerJobMean: Math.round((perJobRequests.reduce((a, b) => a + b, 0) / JOBS) * 100) / 100,
    };
  } finally {
    for (const a of aborts) a.abort();
    await env.stop();
  }
}
