// Bench `orphan-memory` (issue 27): the heap the MultiKueue orphan sweep holds for what it lists,
// without a control plane. One process serves LIST pages as an API server stores them: N batch
// Jobs in a worker (half of them MultiKueue copies with our origin label), N/2 Workloads with
// it, and one pod per Job carrying the Job controller's labels (one in 20 orphaned: its Job
// deleted without propagation), each with the managedFields, template and status a real
// cluster adds. Another process reads them the sweep's way
// (readManager over the same kinds, then readWorker with the witness record of a worker at
// rest: every copy seen before; its own code, client-node included) and reports, after a full
// GC, the heap each result keeps, plus the peak RSS and heap while reading. Each size runs in
// fresh processes; NODE_OPTIONS=--max-old-space-size=153 shows it under the functions' heap.
//
// `npm run bench orphan-memory -- 20000,150000`.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { kubeClients } from '../../shared/kube/clients.js';
import { BATCH_JOB } from '../../shared/multikueue/core/kinds.js';
import { JOB_NAME_LABEL, JOB_UID_LABEL, KUEUE_PODSET_LABEL, ORIGIN_LABEL } from '../../shared/multikueue/core/labels.js';
import { readManager, readWorker, type SweepOptions } from '../../shared/multikueue/io/sweep.js';
import { Notifier } from '../../shared/notify/notifier.js';

const SELF = fileURLToPath(import.meta.url);
const MiB = (b: number) => Math.round((b / 1024 / 1024) * 10) / 10;
const ORIGIN = 'bench-manager';
const created = '2026-11-20T10:00:00Z';
const hex = (i: number, salt: number) => ((i * 2654435761 + salt * 40503) >>> 0).toString(16).padStart(8, '0');
const uid = (i: number, salt: number) =>
  `${hex(i, salt)}-${hex(i, salt + 1).slice(0, 4)}-4${hex(i, salt + 2).slice(0, 3)}-a${hex(i, salt + 3).slice(0, 3)}-${hex(i, salt + 4)}0000`;
const ns = (i: number) => `team-${i % 50}`;
const copied = (i: number) => i % 2 === 0;
const managed = (manager: string, fields: object) => ({
  manager,
  operation: 'Update',
  apiVersion: 'v1',
  time: created,
  fieldsType: 'FieldsV1',
  fieldsV1: fields,
});

function job(i: number): object {
  const labels = { app: `train-${i % 100}`, ...(copied(i) ? { [ORIGIN_LABEL]: ORIGIN, 'kueue.x-k8s.io/queue-name': 'user-queue' } : {}) };
  const selector = { [JOB_UID_LABEL]: uid(i, 1) };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `job-${i}`,
      namespace: ns(i),
      uid: uid(i, 1),
      resourceVersion: String(1000 + i),
      generation: 1,
      creationTimestamp: created,
      labels,
      annotations: { 'batch.kubernetes.io/job-tracking': '' },
      managedFields: [
        managed('kueue', {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': { 'f:backoffLimit': {}, 'f:completions': {}, 'f:parallelism': {}, 'f:template': { 'f:spec': { 'f:containers': {} } } },
        }),
        managed('kube-controller-manager', {
          'f:status': { 'f:active': {}, 'f:ready': {}, 'f:startTime': {}, 'f:terminating': {}, 'f:uncountedTerminatedPods': {} },
        }),
      ],
    },
    spec: {
      parallelism: 1,
      completions: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: selector },
      manualSelector: false,
      template: {
        metadata: { labels: { ...selector, [JOB_NAME_LABEL]: `job-${i}`, 'controller-uid': uid(i, 1), 'job-name': `job-${i}`, [KUEUE_PODSET_LABEL]: 'main' } },
        spec: {
          containers: [
            {
              name: 'main',
              image: 'registry.example/train:1.4.2',
              args: ['--epochs', '10'],
              resources: { requests: { cpu: '1', memory: '2Gi' } },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              imagePullPolicy: 'IfNotPresent',
            },
          ],
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          securityContext: {},
          schedulerName: 'default-scheduler',
        },
      },
    },
    status: { startTime: created, active: 1, ready: 1, terminating: 0, uncountedTerminatedPods: {} },
  };
}

function workload(i: number): object {
  return {
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'Workload',
    metadata: {
      name: `job-job-${i}-${hex(i, 9).slice(0, 5)}`,
      namespace: ns(i),
      uid: uid(i, 20),
      resourceVersion: String(500000 + i),
      creationTimestamp: created,
      labels: { [ORIGIN_LABEL]: ORIGIN, 'kueue.x-k8s.io/job-uid': uid(i, 1) },
      managedFields: [managed('kueue', { 'f:metadata': { 'f:labels': {} }, 'f:spec': { 'f:podSets': {}, 'f:queueName': {} } })],
    },
    spec: {
      active: true,
      queueName: 'user-queue',
      podSets: [{ name: 'main', count: 1, template: { spec: { containers: [{ name: 'main', image: 'registry.example/train:1.4.2' }] } } }],
    },
    status: { conditions: [{ type: 'Admitted', status: 'True', reason: 'Admitted', message: 'The workload is admitted', lastTransitionTime: created }] },
  };
}

/** One pod in 20 is left over from a Job deleted without propagation: no owner, its Job's uid gone. */
const orphaned = (i: number) => i % 20 === 0;

function pod(i: number): object {
  const jobUid = orphaned(i) ? uid(i, 60) : uid(i, 1);
  const owners = orphaned(i) ? [] : [{ apiVersion: 'batch/v1', kind: 'Job', name: `job-${i}`, uid: jobUid, controller: true, blockOwnerDeletion: true }];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `job-${i}-${hex(i, 30).slice(0, 5)}`,
      namespace: ns(i),
      uid: uid(i, 40),
      resourceVersion: String(900000 + i),
      creationTimestamp: created,
      labels: { [JOB_UID_LABEL]: jobUid, [JOB_NAME_LABEL]: `job-${i}`, 'controller-uid': jobUid, 'job-name': `job-${i}`, [KUEUE_PODSET_LABEL]: 'main' },
      ownerReferences: owners,
      managedFields: [managed('kube-controller-manager', { 'f:metadata': { 'f:labels': {}, 'f:ownerReferences': {} }, 'f:spec': { 'f:containers': {} } })],
    },
    spec: {
      containers: [
        { name: 'main', image: 'registry.example/train:1.4.2', resources: { requests: { cpu: '1', memory: '2Gi' } }, imagePullPolicy: 'IfNotPresent' },
      ],
      restartPolicy: 'Never',
      nodeName: `node-${i % 200}`,
      serviceAccountName: 'default',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
    status: { phase: 'Running', qosClass: 'Burstable', startTime: created },
  };
}

/** The LISTs the sweep sends, paged with limit/continue as the API server pages them. */
function serve(total: number): Promise<number> {
  const kinds: Record<string, { count: number; make: (i: number) => object }> = {
    '/apis/batch/v1/jobs': { count: total, make: job },
    '/apis/kueue.x-k8s.io/v1beta2/workloads': { count: Math.floor(total / 2), make: (i) => workload(2 * i) },
    '/api/v1/pods': { count: total, make: pod },
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'application/json');
    const k = kinds[url.pathname];
    if (req.method !== 'GET' || !k) {
      res.statusCode = 404;
      return res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
    }
    // The only selector the sweep sends for copies is our origin label: jobs are filtered by it, the rest carry it.
    const only = url.pathname === '/apis/batch/v1/jobs' && url.searchParams.get('labelSelector')?.startsWith(ORIGIN_LABEL) ? copied : () => true;
    const limit = Number(url.searchParams.get('limit') ?? k.count);
    const items: object[] = [];
    let i = Number(url.searchParams.get('continue') || 0);
    for (; i < k.count && items.length < limit; i++) if (only(i)) items.push(k.make(i));
    const metadata = { resourceVersion: '999999999', ...(i < k.count ? { continue: String(i), remainingItemCount: k.count - i } : {}) };
    res.end(JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata, items }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

export interface OrphanMemory {
  jobs: number;
  workloads: number;
  pods: number;
  /**
   * Heap after a full GC with both answers held (the manager's keys, the worker's live Job uids
   * and the copies and pods the core needs), minus the heap before reading. To a few MiB: a
   * GC during the read also frees some of what was there before it.
   */
  heldHeapMiB: number;
  peakHeapUsedMiB: number;
  peakRssMiB: number;
  readMs: number;
}

type Reading = { heldHeapMiB: number; peakHeapUsedMiB: number; peakRssMiB: number; readMs: number };

async function read(port: number, total: number): Promise<Reading> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc (npm run bench does)');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'bench', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'bench' }],
    contexts: [{ name: 'bench', cluster: 'bench', user: 'bench' }],
    currentContext: 'bench',
  });
  const api = kubeClients(kc, { qps: 1e6, burst: 1e6, timeoutMs: 120_000 });
  let peakHeap = 0;
  const timer = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 10);
  // The witness record of a worker at rest: every copied Job seen before (read before the lists, outside the figures).
  const witnessed = new Map<string, string>();
  for (let i = 0; i < total; i++) if (copied(i)) witnessed.set(uid(i, 1), `${ns(i)}/job-${i}`);
  gc();
  const base = process.memoryUsage().heapUsed;
  const started = Date.now();
  const manager = await readManager(api, [BATCH_JOB]);
  const opts: SweepOptions = {
    origin: ORIGIN,
    kinds: [BATCH_JOB],
    kueueNamespace: 'kueue-system',
    propagation: 'Background',
    limit: 1000,
    dryRun: true,
    notifier: Notifier.off(),
  };
  const worker = await readWorker(api, opts, { origin: ORIGIN, manager, witnessed });
  const readMs = Date.now() - started;
  clearInterval(timer);
  gc();
  const held = process.memoryUsage().heapUsed - base;
  // Both answers are used after the measurement, so they were held during it.
  if (manager.live.size === 0 || worker.liveJobUids.size === 0) throw new Error('nothing listed');
  api.close();
  return {
    heldHeapMiB: MiB(held),
    peakHeapUsedMiB: MiB(peakHeap),
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    readMs,
  };
}

// --no-flush-bytecode in the reader: V8 otherwise drops the bytecode of functions run only at
// start during the GCs of a long read, and the heap held would come out short by that.
const child = (args: string[], flags: string[] = []): ChildProcess =>
  fork(SELF, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [...process.execArgv, ...flags] });

export async function runOrphanMemoryBench(sizes: number[]): Promise<Record<string, OrphanMemory>> {
  const out: Record<string, OrphanMemory> = {};
  for (const total of sizes) {
    const server = child(['server', String(total)]);
    const [port] = (await once(server, 'message')) as [number];
    const reader = child(['read', String(port), String(total)], ['--no-flush-bytecode']);
    const [result] = (await once(reader, 'message')) as [Reading];
    server.kill();
    out[`objects${total}`] = { jobs: total, workloads: Math.floor(total / 2), pods: total, ...result };
  }
  return out;
}

// As a child process: `server <total>` or `read <port> <total>`.
if (process.argv[1] === SELF && process.send) {
  const [role, a, b] = process.argv.slice(2);
  if (role === 'server') process.send(await serve(Number(a)));
  else if (role === 'read') {
    const result = await read(Number(a), Number(b));
    process.send(result, () => process.exit(0));
  }
}
