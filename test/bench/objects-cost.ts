// Bench `objects-cost` (issue 45): the CPU the objects family spends per finished Job removed,
// beside a plain client's parallel-DELETE ceiling in the same run. N Jobs finish (kwok ends
// their pods) in each of three namespaces; then, one after the other:
//  - ceiling: objects-plain-client.mjs, a process of its own: one LIST of its namespace's Jobs,
//    one DELETE per Job (uid + resourceVersion preconditions, Background), 32 in flight;
//  - pass: one sweep whose only rule is `kind: Job, minAge: 0s, mode: delete` on its namespace
//    (in process, through the target every transport shares, as `objects` runs it);
//  - event: objectUpdated fed one Resource-mode update per Job (the Job as listed), 32 in flight
//    (in process, through the same resolver).
// kube-tidy's CPU is this process's (process.cpuUsage) over the pass or over the events, the
// bench idle meanwhile; its requests are those its clients send. With OBJECTS_COST_PROFILE=<dir>
// a V8 CPU profile of each kube-tidy phase is written there (where a removal's CPU goes); with
// OBJECTS_COST_EVENTS=off no Kubernetes Event is recorded per Job (RECORD_EVENTS=false).
// `npm run bench objects-cost -- 300`.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BatchV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { node22 } from '../../infra/bundle/node22.js';
import { objectUpdated } from '../../functions/object-updated.js';
import { sweep } from '../../functions/sweep.js';
import type { KubeObject, TickEvent } from '../../shared/cloudevents/index.js';
import { kubeClients } from '../../shared/kube/index.js';
import { startRuntime, type Runtime } from '../../shared/runtime/runtime.js';
import { resolveContextOf, resolver } from '../../shared/serve/resolve.js';
import type { Cluster } from '../harness/index.js';
import { withCluster } from './cluster.js';
import { finishedJobs } from './objects.js';
import { createNamespace } from './pods.js';
import { connection } from './scale/ceiling.js';

const IN_FLIGHT = 32;
const CLIENT = fileURLToPath(new URL('./objects-plain-client.mjs', import.meta.url));
const round2 = (x: number) => Math.round(x * 100) / 100;

export interface PlainJobsRun {
  listed: number;
  deleted: number;
  failed: Record<string, number>;
  listSeconds: number;
  writeSeconds: number;
  cpuMs: { list: number; delete: number };
}

/** A collection objects-plain-client.mjs empties: its API root (`/api/v1`, `/apis/apps/v1`) and plural; default the Jobs. */
export type PlainResource = { root: string; plural: string };

/** objects-plain-client.mjs against `namespace`, as the kubeconfig's user, in a process of its own. */
export async function ceiling(kubeconfigPath: string, namespace: string, resources?: PlainResource[]): Promise<PlainJobsRun> {
  const child = spawn(node22(), [CLIENT], { env: { PATH: process.env.PATH }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += String(d)));
  child.stderr.on('data', (d: Buffer) => (err += String(d)));
  const input = JSON.stringify({ ...(await connection(kubeconfigPath)), namespace, ...(resources ? { resources } : {}) });
  const code = await new Promise<number | null>((resolve) => {
    child.once('close', resolve);
    child.stdin.end(input);
  });
  if (code !== 0) throw new Error(`objects-plain-client.mjs exited ${code}: ${err.slice(-2000)}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as PlainJobsRun;
}

/** `run`'s CPU (ms) in this process, and its V8 profile written to OBJECTS_COST_PROFILE/<name>.cpuprofile when asked. */
export async function measured<T>(name: string, run: () => Promise<T>): Promise<{ value: T; cpuMs: number; ms: number }> {
  const dir = process.env.OBJECTS_COST_PROFILE;
  const session = dir ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await run();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(dir!, { recursive: true });
    writeFileSync(join(dir!, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
  return { value, cpuMs: (cpu.user + cpu.system) / 1000, ms };
}

/** A runtime whose policy's one rule removes the finished Jobs of `namespace`; its requests counted. */
async function runtimeFor(cluster: Cluster, kc: KubeConfig, namespace: string): Promise<{ rt: Runtime; requests: () => number }> {
  const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-bench-objects-cost-')), 'policy.json');
  const rule = { name: 'finished-jobs', kind: 'Job', minAge: '0s', mode: 'delete', namespaces: { include: [namespace] } };
  writeFileSync(file, JSON.stringify({ apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy', profiles: [], kubeTidy: { objects: [rule] } }));
  let requests = 0;
  const clients = kubeClients(kc, { onRequest: () => void requests++ });
  const env = {
    POLICY_FILE: file,
    KUBECONFIG: cluster.kubeconfigPath,
    BRAKES_NAMESPACE: 'kube-tidy-bench',
    REQUEST_DEADLINE_SECONDS: '300',
    // OBJECTS_COST_EVENTS=off: no Kubernetes Event per Job (the family's own cost, as the pods' figures are taken).
    ...(process.env.OBJECTS_COST_EVENTS === 'off' ? { RECORD_EVENTS: 'false' } : {}),
  };
  const rt = await startRuntime(env, { log: pino({ level: 'silent' }), kubeConfig: kc, clients });
  return { rt, requests: () => requests };
}

const perJob = (ms: number, n: number) => round2(ms / n);

async function viaPass(cluster: Cluster, kc: KubeConfig, namespace: string, n: number) {
  const { rt, requests } = await runtimeFor(cluster, kc, namespace);
  const resolve = resolver(sweep, await sweep.setup(rt), resolveContextOf(rt));
  const tick: TickEvent = { type: 'tick', data: {}, origin: { bridge: 'knative-pingsource', transport: 'plain' } };
  const sent0 = requests();
  const run = await measured('pass', () => resolve.event(tick));
  const answer = run.value.body as { objects?: { outcomes: Record<string, number> } };
  if (answer.objects?.outcomes.deleted !== n) throw new Error(`the pass deleted ${JSON.stringify(answer.objects?.outcomes)} of ${n}`);
  return { removalsPerSecond: Math.round(n / (run.ms / 1000)), cpuMsPerJob: perJob(run.cpuMs, n), requestsPerJob: round2((requests() - sent0) / n) };
}

/** The namespace's Jobs as the watch would carry them (JSON, apiVersion and kind set). */
async function jobsAsEvents(kc: KubeConfig, namespace: string): Promise<KubeObject[]> {
  const { items } = await kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace });
  return items.map((j) => JSON.parse(JSON.stringify({ ...j, apiVersion: 'batch/v1', kind: 'Job' })) as KubeObject);
}

async function viaEvents(cluster: Cluster, kc: KubeConfig, namespace: string, n: number) {
  const { rt, requests } = await runtimeFor(cluster, kc, namespace);
  const parts = await objectUpdated.setup(rt);
  const resolve = resolver(objectUpdated, parts, resolveContextOf(rt));
  const jobs = await jobsAsEvents(kc, namespace);
  const outcomes: Record<string, number> = {};
  const sent0 = requests();
  const run = await measured('event', async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < jobs.length) {
          const object = jobs[next++]!;
          const answer = await resolve.event({ type: 'object', verb: 'update', object, origin: { bridge: 'knative-apiserversource', transport: 'binary' } });
          const outcome = answer.status === 200 ? String(answer.body.outcome) : `http ${answer.status}`;
          outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        }
      }),
    );
  });
  parts.stop();
  if (outcomes.deleted !== n) throw new Error(`the events deleted ${JSON.stringify(outcomes)} of ${n}`);
  return { removalsPerSecond: Math.round(n / (run.ms / 1000)), cpuMsPerJob: perJob(run.cpuMs, n), requestsPerJob: round2((requests() - sent0) / n) };
}

export async function runObjectsCostBench(n = 300) {
  return withCluster('bench-objects-cost', 2, async (cluster) => {
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const spaces = { ceiling: 'objects-ceiling', pass: 'objects-pass', event: 'objects-event' };
    for (const ns of Object.values(spaces)) await createNamespace(core, ns);
    for (const ns of Object.values(spaces)) await finishedJobs(kc, ns, n);
    const plain = await ceiling(cluster.kubeconfigPath, spaces.ceiling);
    if (plain.deleted !== n) throw new Error(`the ceiling deleted ${plain.deleted} of ${n}: ${JSON.stringify(plain.failed)}`);
    const pass = await viaPass(cluster, kc, spaces.pass, n);
    const event = await viaEvents(cluster, kc, spaces.event, n);
    const ceilingCpu = { delete: perJob(plain.cpuMs.delete, n), listAndDelete: perJob(plain.cpuMs.list + plain.cpuMs.delete, n) };
    return {
      jobs: n,
      ceiling: { removalsPerSecond: Math.round(n / plain.writeSeconds), cpuMsPerJob: ceilingCpu, requestsPerJob: round2((n + 1) / n) },
      pass: { ...pass, vsCeilingCpu: round2(pass.cpuMsPerJob / ceilingCpu.listAndDelete) },
      event: { ...event, vsCeilingCpu: round2(event.cpuMsPerJob / ceilingCpu.delete) },
    };
  });
}
