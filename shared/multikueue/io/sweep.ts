// The orphan sweep's I/O around the pure `orphans` (core/orphans.ts): read the manager once,
// then each worker (its copies, its Jobs, its Job pods, the witness record), decide, carry
// out through the worker's ClusterWriter, report. A worker failing half-way is reported with
// what was done; the others are not held up.
import { TransientKubeError } from '../../kube/errors.js';
import { storedPodId } from '../../kube/from-client.js';
import { listPods } from '../../kube/list.js';
import { tallied } from '../../kube/request-tally.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { Stored } from '../../model/identity.js';
import type { Pod } from '../../model/objects.js';
import { BATCH_JOB, isBatchJob, WORKLOAD, type JobKind } from '../core/kinds.js';
import { JOB_UID_LABEL, ORIGIN_LABEL } from '../core/labels.js';
import { keyOf, kindKey, orphans, type ManagerSnapshot, type OrphanDecision, type WorkerSnapshot } from '../core/orphans.js';
import { deleteRemote } from './cascade.js';
import { CASCADE_OUTSIDE_BUDGETS, cascadeTicket } from './outside-budgets.js';
import type { RemoteObject } from '../core/remote-object.js';
import { keepCopy, keepJobPod, type CopyContext } from './compact.js';
import { listEach } from './list.js';
import { readWitness, updateWitness } from './witness.js';
import type { Worker } from './workers.js';
import type { KubeClients } from '../../kube/clients.js';
import { inOrder } from '../../pool/in-order.js';
import { orphanDone } from '../../notify/families.js';
import type { Notifier } from '../../notify/notifier.js';

export interface SweepOptions {
  origin: string;
  kinds: JobKind[];
  kueueNamespace: string;
  propagation: 'Background' | 'Foreground';
  limit: number;
  dryRun: boolean;
  /** The process's CloudEvents out (notify/notifier.ts): one per orphan acted on or reported. */
  notifier: Notifier;
}

export type Done = OrphanDecision & { result?: string; outsideBudgets?: string };

export interface WorkerReport {
  worker: string;
  outcome: 'swept' | 'unreachable' | 'failed';
  error?: string;
  counts: Record<string, number>;
  decisions: Done[];
  witness?: 'unchanged' | 'written' | 'conflict';
  /** Requests sent to this worker's API server for the sweep, retries after throttling and Events included (counted as they are sent: kube/request-tally.ts). */
  requests: number;
}

const notInstalled = (e: unknown) => (e as { kind?: string }).kind === 'not-found';

/**
 * Throws (TransientKubeError: answer 5xx) when the manager cannot be read: without it nothing
 * can be proven gone. `requests`: those sent to the manager for the read, as the client counted them.
 */
export function readManager(manager: Pick<KubeClients, 'custom'>, kinds: JobKind[]): Promise<ManagerSnapshot & { requests: number }> {
  return tallied(async (tally) => {
    const live = new Set<string>();
    const listed = new Set<string>();
    for (const kind of [...kinds, WORKLOAD]) {
      try {
        // Only the key of each object that is not being deleted, taken page by page.
        const keys = await listEach(manager, kind, (o) =>
          o.metadata.deletionTimestamp ? undefined : keyOf(kind, o.metadata.namespace ?? '', o.metadata.name ?? ''),
        );
        listed.add(kindKey(kind));
        for (const key of keys.items) live.add(key);
      } catch (e) {
        if (!notInstalled(e)) throw e;
      }
    }
    return { live, listed, requests: tally.sent };
  });
}

/** Orphan deletions in flight at once per worker. */
const ORPHAN_CONCURRENCY = 16;

/**
 * `writer`: the worker's (built with its clients), or undefined when the worker has none. The
 * sweep runs in a tally of its own: the worker's clients (Workers builds them with the same
 * kubeClients) count every request they send for it, whatever else runs at the same time.
 */
export function sweepWorker(worker: Worker, writer: ClusterWriter | undefined, manager: ManagerSnapshot, opts: SweepOptions): Promise<WorkerReport> {
  return tallied(async (tally) => ({ ...(await sweep(worker, writer, manager, opts)), requests: tally.sent }));
}

async function sweep(worker: Worker, writer: ClusterWriter | undefined, manager: ManagerSnapshot, opts: SweepOptions): Promise<Omit<WorkerReport, 'requests'>> {
  const report: Omit<WorkerReport, 'requests'> = { worker: worker.name, outcome: 'swept', counts: {}, decisions: [] };
  if (!worker.api || !writer) return { ...report, outcome: worker.error?.transient ? 'unreachable' : 'failed', error: worker.error?.message };
  const api = worker.api;
  try {
    // The witness record first: what the core would only confirm is not kept (io/compact.ts keepCopy).
    const witness = await readWitness(api, opts.kueueNamespace, opts.origin);
    const { pods, ...snapshot } = await readWorker(api, opts, { origin: opts.origin, manager, witnessed: witness.uids });
    const plan = orphans({ ...snapshot, witnessed: witness.uids }, manager, { origin: opts.origin, limit: opts.limit });
    // Writes in flight at once, in the plan's order (the clients' rate limit still applies).
    const { results } = await inOrder(
      plan.decisions,
      ORPHAN_CONCURRENCY,
      () => false,
      async (d) => {
        const done: Done = { ...d };
        if (d.action === 'delete' || d.action === 'evict') Object.assign(done, await carryOut(writer, d, pods, opts));
        orphanDone(opts.notifier, { ...done, worker: worker.name, dryRun: writer.dryRun }, pluralOf(d, opts));
        return done;
      },
    );
    for (const done of results) {
      if (!done) continue;
      report.decisions.push(done);
      const key = done.result ?? done.action;
      report.counts[key] = (report.counts[key] ?? 0) + 1;
    }
    const w = await updateWitness(writer, opts.kueueNamespace, opts.origin, witness, plan.witness);
    report.witness = w.outcome;
  } catch (e) {
    return { ...report, outcome: e instanceof TransientKubeError ? 'unreachable' : 'failed', error: (e as Error).message };
  }
  return report;
}

/**
 * What the sweep reads in one worker, page by page, keeping only what the core could act on or
 * learn from (io/compact.ts), judged against `known`: the manager and the witness record as read.
 * Exported for `npm run bench orphan-memory`.
 */
export async function readWorker(
  api: KubeClients,
  opts: SweepOptions,
  known: CopyContext,
): Promise<Omit<WorkerSnapshot, 'witnessed'> & { pods: Map<string, Stored<Pod>> }> {
  const copies: WorkerSnapshot['copies'] = [];
  const selector = `${ORIGIN_LABEL}=${opts.origin}`;
  const batchCopies = opts.kinds.some(isBatchJob);
  // Every batch Job (not only ours): a pod's Job is "gone" only if no Job has its uid. Of each
  // only its uid is kept, or the copy itself when the core needs it.
  const jobs = await listEach(api, BATCH_JOB, (j) => (batchCopies && keepCopy(BATCH_JOB, j, known)) || (j.metadata.uid ?? ''));
  const liveJobUids = new Set(jobs.items.map((j) => (typeof j === 'string' ? j : (j.metadata.uid ?? ''))));
  const ourJobs = jobs.items.filter((j): j is RemoteObject => typeof j !== 'string');
  for (const kind of [...opts.kinds, WORKLOAD]) {
    if (isBatchJob(kind)) {
      copies.push({ kind, items: ourJobs });
      continue;
    }
    try {
      const page = await listEach(api, kind, (o) => keepCopy(kind, o, known), selector);
      copies.push({ kind, items: page.items });
    } catch (e) {
      if (!notInstalled(e)) throw e; // a kind not installed in this worker has no copies there
    }
  }
  // Page by page, only the pods the core could act on or learn from, as it reads them (io/compact.ts).
  const jobPods: Stored<Pod>[] = [];
  for await (const page of listPods(api.core, { labelSelector: JOB_UID_LABEL }))
    for (const p of page.items) {
      const kept = keepJobPod(p, liveJobUids);
      if (kept) jobPods.push(kept);
    }
  return { copies, liveJobUids, jobPods, pods: new Map(jobPods.map((p) => [p.metadata.uid ?? '', p])) };
}

/** The copy's resource (its kind's plural), or a Pod's. */
function pluralOf(d: OrphanDecision, opts: SweepOptions): string | undefined {
  if (d.kind === 'Pod') return 'pods';
  return [...opts.kinds, WORKLOAD].find((k) => k.kind === d.kind && `${k.group}/${k.version}` === d.apiVersion)?.plural;
}

/** What the API server answered, and why the removal went outside the budgets (its unlimited ticket's reason). */
async function carryOut(
  writer: ClusterWriter,
  d: OrphanDecision,
  pods: ReadonlyMap<string, Stored<Pod>>,
  opts: SweepOptions,
): Promise<{ result: string; outsideBudgets?: string }> {
  if (d.kind === 'Pod') {
    // The pod as listed decides the write: DELETE when it was stored terminal, the Eviction
    // API otherwise (a PodDisruptionBudget still holds), tied to its uid and resourceVersion.
    // Never an evacuation request, whatever request-evict-only mark the pod carries: its Job is
    // gone from the manager, so this is the cascade the garbage collector would have done, which
    // deletes regardless of any annotation; there is no workload left to preserve, and no
    // evacuation family in a worker cluster to answer a request. Outside the budgets, as the cascade.
    const pod = pods.get(d.uid)!;
    const r = await writer.removePod({ ...storedPodId(pod), evictOnly: false }, cascadeTicket(), `kube-tidy orphan sweep: ${d.reason}`);
    return { result: r.outcome, ...(r.unlimited ? { outsideBudgets: r.unlimited } : {}) };
  }
  const kind = [...opts.kinds, WORKLOAD].find((k) => k.kind === d.kind && `${k.group}/${k.version}` === d.apiVersion)!;
  // Tied to the copy as listed, uid and resourceVersion: a copy relabelled to another origin
  // since, or changed in any way, answers stale and is judged again by the next sweep.
  const result = await deleteRemote(
    writer,
    kind,
    { namespace: d.namespace, name: d.name, uid: d.uid, ...(d.resourceVersion ? { resourceVersion: d.resourceVersion } : {}) },
    opts.propagation,
  );
  // deleteRemote's ticket is the cascade's: the same reason as the writer's answer carries for a pod.
  return { result, outsideBudgets: CASCADE_OUTSIDE_BUDGETS };
}
