// The orphan sweep's I/O around the pure `orphans`: read the manager once, then each worker
// (its copies, its Jobs, its Job pods, the witness record), decide, carry out, report. A
// worker failing half-way is reported with what was done; the others are not held up.
import { deletePod, evictPod, listPods, TransientKubeError } from '../kube/index.js';
import { deleteRemote } from './cascade.js';
import { listAll, type AnyObject, type ApiClients } from './client.js';
import { BATCH_JOB, isBatchJob, WORKLOAD, type JobKind } from './kinds.js';
import { JOB_UID_LABEL, ORIGIN_LABEL } from './labels.js';
import { keyOf, kindKey, orphans, type ManagerSnapshot, type OrphanDecision, type WorkerSnapshot } from './orphans.js';
import { readWitness, updateWitness } from './witness.js';
import type { Worker } from './workers.js';

export interface SweepOptions {
  origin: string;
  kinds: JobKind[];
  kueueNamespace: string;
  propagation: 'Background' | 'Foreground';
  limit: number;
  dryRun: boolean;
}

export type Done = OrphanDecision & { result?: string };

export interface WorkerReport {
  worker: string;
  outcome: 'swept' | 'unreachable' | 'failed';
  error?: string;
  counts: Record<string, number>;
  decisions: Done[];
  witness?: 'unchanged' | 'written' | 'conflict';
  requests: number;
}

const notInstalled = (e: unknown) => (e as { kind?: string }).kind === 'not-found';

/** Throws (TransientKubeError: answer 5xx) when the manager cannot be read: without it nothing can be proven gone. */
export async function readManager(manager: ApiClients, kinds: JobKind[]): Promise<ManagerSnapshot & { requests: number }> {
  const live = new Set<string>();
  const listed = new Set<string>();
  let requests = 0;
  for (const kind of [...kinds, WORKLOAD]) {
    try {
      const page = await listAll(manager, kind);
      requests += page.requests;
      listed.add(kindKey(kind));
      for (const o of page.items) if (!o.metadata.deletionTimestamp) live.add(keyOf(kind, o.metadata.namespace ?? '', o.metadata.name));
    } catch (e) {
      requests++;
      if (!notInstalled(e)) throw e;
    }
  }
  return { live, listed, requests };
}

export async function sweepWorker(worker: Worker, manager: ManagerSnapshot, opts: SweepOptions): Promise<WorkerReport> {
  const report: WorkerReport = { worker: worker.name, outcome: 'swept', counts: {}, decisions: [], requests: 0 };
  if (!worker.api) return { ...report, outcome: worker.error?.transient ? 'unreachable' : 'failed', error: worker.error?.message };
  const api = worker.api;
  try {
    const snapshot = await readWorker(api, opts, report);
    const witness = await readWitness(api, opts.kueueNamespace, opts.origin);
    report.requests++;
    const plan = orphans({ ...snapshot, witnessed: witness.uids }, manager, { origin: opts.origin, limit: opts.limit });
    for (const d of plan.decisions) {
      const done: Done = { ...d };
      report.decisions.push(done);
      if (d.action === 'delete' || d.action === 'evict') {
        report.requests++;
        done.result = await carryOut(api, d, opts);
      }
      const key = done.result ?? d.action;
      report.counts[key] = (report.counts[key] ?? 0) + 1;
    }
    const w = await updateWitness(api, opts.kueueNamespace, opts.origin, witness, plan.witness, opts.dryRun);
    report.witness = w.outcome;
    report.requests += w.requests;
  } catch (e) {
    return { ...report, outcome: e instanceof TransientKubeError ? 'unreachable' : 'failed', error: (e as Error).message };
  }
  return report;
}

async function readWorker(api: ApiClients, opts: SweepOptions, report: WorkerReport): Promise<Omit<WorkerSnapshot, 'witnessed'>> {
  const copies: WorkerSnapshot['copies'] = [];
  const selector = `${ORIGIN_LABEL}=${opts.origin}`;
  // Every batch Job (not only ours): a pod's Job is "gone" only if no Job has its uid.
  const jobs = await listAll(api, BATCH_JOB);
  report.requests += jobs.requests;
  const liveJobUids = new Set(jobs.items.map((j) => j.metadata.uid));
  for (const kind of [...opts.kinds, WORKLOAD]) {
    if (isBatchJob(kind)) {
      copies.push({ kind, items: jobs.items.filter((j) => j.metadata.labels?.[ORIGIN_LABEL] === opts.origin) });
      continue;
    }
    try {
      const page = await listAll(api, kind, selector);
      report.requests += page.requests;
      copies.push({ kind, items: page.items });
    } catch (e) {
      report.requests++;
      if (!notInstalled(e)) throw e; // a kind not installed in this worker has no copies there
    }
  }
  const jobPods: AnyObject[] = [];
  let podRequests = 0;
  for await (const page of listPods(api.core, { labelSelector: JOB_UID_LABEL })) {
    jobPods.push(...(page.items as unknown as AnyObject[]));
    podRequests = page.requests;
  }
  report.requests += podRequests;
  return { copies, liveJobUids, jobPods };
}

async function carryOut(api: ApiClients, d: OrphanDecision, opts: SweepOptions): Promise<string> {
  const target = { namespace: d.namespace, name: d.name, uid: d.uid };
  if (d.kind === 'Pod') {
    // Running pods through the Eviction API, so a PodDisruptionBudget still holds. The uid is
    // enough of a precondition: an orphaned pod has no owner that could take it back.
    if (d.action === 'evict') return (await evictPod(api.core, target, { dryRun: opts.dryRun })).outcome;
    return (await deletePod(api.core, target, { dryRun: opts.dryRun })).outcome;
  }
  const kind = [...opts.kinds, WORKLOAD].find((k) => k.kind === d.kind && `${k.group}/${k.version}` === d.apiVersion)!;
  return deleteRemote(api, kind, target, { propagation: opts.propagation, dryRun: opts.dryRun });
}
