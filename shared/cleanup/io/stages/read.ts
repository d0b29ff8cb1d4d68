// The read stage of a pass: the context a policy asks for (once), then the pods a page at a
// time, in every namespace the pass covers, from where an earlier tick stopped if it read in
// steps. Owns pages, podsSeen, the field selector and the listing's time.
import { listPods, type PodPage } from '../../../kube/list.js';
import type { JobOwners, Owner } from '../../../selection/retention.js';
import type { SnapshotNeeds } from '../../../selection/needs.js';
import type { SnapshotIndex } from '../../../evictor/snapshot-index.js';
import { indexSnapshot, type Snapshot } from '../../../selection/snapshot.js';
import type { Policy } from '../../../policy/policy.js';
import type { CleanupHandle } from '../../handle.js';
import { fetchContext, fetchJobOwners } from '../context.js';

export interface ReadSummary {
  pages: number;
  podsSeen: number;
  /** Reading and deciding every page (the order stage included); 0 for a carried plan. */
  listMs: number;
  /** Of listMs, waiting for the writers before reading the next page (reading in steps, selection/early.ts). */
  listWaitMs: number;
  fieldSelector?: string | undefined;
}

/** What every page is decided against: the context's snapshot, its index when it does not depend on the page, and whose Job is whose. */
export interface ReadContext {
  snapshot: Omit<Snapshot, 'pods'>;
  index?: SnapshotIndex;
  jobs?: JobOwners;
}

export async function readContext(h: CleanupHandle, policy: Policy, needs: SnapshotNeeds, namespaces?: readonly string[]): Promise<ReadContext> {
  const { snapshot } = await fetchContext(h, needs);
  // kubeTidy.retention groups a CronJob's Jobs' pods: which Job is whose, one paged LIST of Jobs.
  const jobs = policy.retention?.length ? await jobOwnersIn(h, namespaces) : undefined;
  // With every pod in the context, the index does not depend on the page: build it once.
  const index = snapshot.contextPods ? indexSnapshot({ ...snapshot, pods: [] }) : undefined;
  return { snapshot, ...(index ? { index } : {}), ...(jobs ? { jobs } : {}) };
}

export interface ReadOptions {
  namespaces?: readonly string[] | undefined;
  labelSelector?: string | undefined;
  fieldSelector: string | undefined;
  pageSize: number;
  /** The continue token an earlier tick stopped at (reading in steps). */
  from?: string | undefined;
}

export class ReadStage {
  readonly summary: ReadSummary;

  constructor(
    private readonly h: CleanupHandle,
    private readonly o: ReadOptions,
  ) {
    this.summary = { pages: 0, podsSeen: 0, listMs: 0, listWaitMs: 0, fieldSelector: o.fieldSelector };
  }

  /** Every page, counted as it comes; the consumer stops by leaving the loop. */
  async *pages(): AsyncGenerator<PodPage, void, undefined> {
    const { namespaces, labelSelector, fieldSelector, pageSize, from } = this.o;
    for (const namespace of namespaces?.length ? namespaces : [undefined]) {
      const query = { namespace, labelSelector, fieldSelector, limit: pageSize, ...(from ? { from } : {}) };
      for await (const page of listPods(this.h.reader.podReads, query)) {
        this.summary.pages++;
        this.summary.podsSeen += page.items.length;
        yield page;
      }
    }
  }

  /** Time spent waiting before the next page (the writers' back-pressure). */
  async waited(wait: () => Promise<void>): Promise<void> {
    const waited = this.h.now();
    await wait();
    this.summary.listWaitMs += this.h.now() - waited;
  }
}

/** The CronJob of each Job in the pass's namespaces (every namespace when it names none). */
async function jobOwnersIn(h: CleanupHandle, namespaces: readonly string[] | undefined): Promise<JobOwners> {
  const jobs = new Map<string, Owner>();
  for (const namespace of namespaces?.length ? namespaces : [undefined]) for (const [k, v] of (await fetchJobOwners(h, namespace)).jobs) jobs.set(k, v);
  return jobs;
}
