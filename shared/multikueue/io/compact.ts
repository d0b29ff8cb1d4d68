// What the orphan sweep keeps of what it lists (issue 27). A worker's Jobs and pods come whole
// from a LIST (managedFields, templates, statuses: kilobytes each) and a worker may hold
// 150,000 of them; the pure core (core/orphans.ts) reads a few fields of each, and of most
// objects nothing at all. Applied page by page, as the pages come (kube/pager.ts listEverything's
// `keep`, and each page of listPods), so the objects themselves are let go with their page.
// io/compact.test.ts checks that the core decides the same on what is kept as on whole objects.
import type { ObjectMeta } from '../../model/objects.js';
import { isBatchJob, type JobKind } from '../core/kinds.js';
import { JOB_NAME_LABEL, JOB_UID_LABEL, KUEUE_PODSET_LABEL, ORIGIN_LABEL } from '../core/labels.js';
import { keyOf, kindKey, type ManagerSnapshot } from '../core/orphans.js';
import type { RemoteObject } from '../core/remote-object.js';

/** The labels the core reads; every other label is left behind. */
const READ_LABELS = [ORIGIN_LABEL, JOB_UID_LABEL, JOB_NAME_LABEL, KUEUE_PODSET_LABEL] as const;

/**
 * An object as the core and the writes read it: its identity (namespace, name, uid,
 * resourceVersion: a write is tied to them), whether it is being deleted, the labels and
 * controller reference the core reads, and its phase. Every field kept is the value as
 * stored, so a Stored object stays one.
 */
export function compactRemote<T extends RemoteObject>(o: T): T {
  const m = o.metadata;
  const labels: Record<string, string> = {};
  for (const l of READ_LABELS) if (m.labels?.[l] !== undefined) labels[l] = m.labels[l];
  const controller = m.ownerReferences?.filter((r) => r.controller);
  const metadata: ObjectMeta = {
    name: m.name,
    namespace: m.namespace,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
    labels,
    ...(m.deletionTimestamp ? { deletionTimestamp: m.deletionTimestamp } : {}),
    ...(controller?.length ? { ownerReferences: controller } : {}),
  };
  return { metadata, ...(o.status?.phase === undefined ? {} : { status: { phase: o.status.phase } }) } as T;
}

/** What a worker's copies are judged against: the manager as read, the witness record as read. */
export interface CopyContext {
  origin: string;
  manager: ManagerSnapshot;
  /** The witness record's uids for our origin (io/witness.ts). */
  witnessed: ReadonlyMap<string, string>;
}

/**
 * A copy (an object of a configured kind, Workloads included) kept only when the core could
 * act on it, report it, or learn from it: one of another origin's or being deleted is skipped
 * by the core; one whose original the manager still has is left alone, and of a batch Job
 * the core then only records the uid in the witness record, which it leaves out again when
 * the record has it already. In a worker at rest that is every copy.
 */
export function keepCopy<T extends RemoteObject>(kind: JobKind, o: T, c: CopyContext): T | undefined {
  const m = o.metadata;
  if (m.labels?.[ORIGIN_LABEL] !== c.origin || m.deletionTimestamp) return undefined;
  const live = c.manager.listed.has(kindKey(kind)) && c.manager.live.has(keyOf(kind, m.namespace ?? '', m.name ?? ''));
  if (live && (!isBatchJob(kind) || c.witnessed.has(m.uid ?? ''))) return undefined;
  return compactRemote(o);
}

/**
 * A pod carrying the Job controller's uid label, kept only when the core could act on it or
 * learn from it: a pod whose Job still exists in the worker (or that has no Job uid) is
 * skipped by the core, and the uid it refers to already keeps that Job's witness entry (a
 * live Job's). In a worker at rest that is nearly every pod. `liveJobUids`: every batch Job's,
 * listed before the pods: the same set the core is given.
 */
export function keepJobPod<T extends RemoteObject>(p: T, liveJobUids: ReadonlySet<string>): T | undefined {
  const jobUid = p.metadata.labels?.[JOB_UID_LABEL];
  return jobUid && !liveJobUids.has(jobUid) ? compactRemote(p) : undefined;
}
