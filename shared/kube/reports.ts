// Writing kube-tidy's OpenReports (openreports.io/v1alpha1 Report): the only writes of
// objects that describe what kube-tidy decided rather than change a workload. Kept apart from
// the writer (writer.ts) on purpose, for one reason: DRY_RUN. A report is the product of a
// plan or an audit, so it is written for real even when every workload write goes through
// the API server's dry run (docs/observing.md "Audits as OpenReports"). What holds for every write still
// holds here: protected namespaces are never written to, and each refusal is counted
// (write-refusals.ts).
//
// Replace, never accumulate: a report is server-side applied whole under the field manager
// `kube-tidy` (force: a hand edit never blocks the next pass; `results` is an atomic list, so
// the applied list replaces the stored one), and a report no pass wrote is deleted at the
// resourceVersion it was listed at (one rewritten since is left to its writer).
import { deleteAsSeen, type DeletedAsSeen } from './delete-as-seen.js';
import { PatchStrategy, setHeaderOptions, type CustomObjectsApi } from '@kubernetes/client-node';
import type { ObjectId } from '../model/identity.js';
import { keyOf } from '../model/identity.js';
import { classifyKubeError, toKubeError } from './errors.js';
import { listEverything, type FetchPage, type RawList } from './pager.js';
import { WriteRefusedError } from './writer.js';
import { MetricsRecorder } from '../metrics/recorder.js';
import { WriteRefusals } from './write-refusals.js';
import { FIELD_MANAGER } from './written-by.js';

export const REPORTS_FIELD_MANAGER = FIELD_MANAGER;
const REPORTS = { group: 'openreports.io', version: 'v1alpha1', plural: 'reports' } as const;
const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

export type ReportsApi = Pick<
  CustomObjectsApi,
  'patchNamespacedCustomObject' | 'listNamespacedCustomObject' | 'listCustomObjectForAllNamespaces' | 'deleteNamespacedCustomObject'
>;

/** A Report as written: its address and the rest of its fields. */
export interface ReportBody {
  metadata: { name: string; namespace: string };
}

interface ListedReport {
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
}

/**
 * Whether the API server serves openreports.io Reports (their CRD installed): one LIST of at most
 * one. A 404 means not served; any other failure is thrown, as every read's.
 */
export async function reportsServed(custom: Pick<CustomObjectsApi, 'listCustomObjectForAllNamespaces'>): Promise<boolean> {
  try {
    await custom.listCustomObjectForAllNamespaces({ ...REPORTS, limit: 1 });
    return true;
  } catch (e) {
    if (classifyKubeError(e).kind === 'not-found') return false;
    throw toKubeError(e, 'list reports (is the OpenReports CRD installed?)');
  }
}

export class ReportWriter {
  constructor(
    private readonly custom: ReportsApi,
    private readonly protectedNamespaces: readonly string[],
    /** Where a refused write is counted and logged: the process's writer's, or one of its own. */
    private readonly refusals: WriteRefusals = new WriteRefusals(MetricsRecorder.off()),
  ) {}

  /** Not a protected namespace: kube-tidy may write its reports there. */
  writable(namespace: string): boolean {
    return !this.protectedNamespaces.includes(namespace);
  }

  private guard(what: string, namespace: string, verb: 'patch' | 'delete'): void {
    if (this.writable(namespace)) return;
    this.refusals.note(verb, 'protected-namespace', what);
    throw new WriteRefusedError(what, `namespace ${namespace} is protected`);
  }

  /** Create or replace the whole report (server-side apply, forced). */
  async apply(report: ReportBody): Promise<void> {
    const { name, namespace } = report.metadata;
    const what = `apply report ${namespace}/${name}`;
    this.guard(what, namespace, 'patch');
    try {
      await this.custom.patchNamespacedCustomObject({ ...REPORTS, namespace, name, body: report, fieldManager: REPORTS_FIELD_MANAGER, force: true }, apply);
    } catch (e) {
      throw this.refusals.noted('patch', what, toKubeError(e, what));
    }
  }

  /**
   * The reports `labelSelector` finds: in each of `namespaces`, or in every namespace. Through
   * the one pager, as a consistent snapshot (an expired token restarts the list): what is
   * deleted is decided from it.
   */
  async list(labelSelector: string, namespaces?: readonly string[]): Promise<ObjectId[]> {
    const out: ObjectId[] = [];
    for (const namespace of namespaces?.length ? namespaces : [undefined]) {
      const fetch: FetchPage<ListedReport> = (page) =>
        (namespace
          ? this.custom.listNamespacedCustomObject({ ...REPORTS, labelSelector, namespace, ...page })
          : this.custom.listCustomObjectForAllNamespaces({ ...REPORTS, labelSelector, ...page })) as Promise<RawList<ListedReport>>;
      // Each report's identity only, page by page (listEverything's keep): the report bodies go with their page.
      const { items } = await listEverything(
        fetch,
        { what: `list reports${namespace ? ` in ${namespace}` : ''} (${labelSelector})` },
        ({ metadata: m = {} }) =>
          m.name && m.namespace
            ? {
                namespace: m.namespace,
                name: m.name,
                ...(m.uid ? { uid: m.uid } : {}),
                ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
              }
            : undefined,
      );
      out.push(...items);
    }
    return out;
  }

  /** Delete a report as it was listed: `stale` when it was rewritten since (its writer's now), `gone` when already gone. */
  async remove(id: ObjectId): Promise<DeletedAsSeen> {
    const what = `delete report ${keyOf(id)}`;
    this.guard(what, id.namespace ?? '', 'delete');
    const preconditions = id.uid ? { uid: id.uid, ...(id.resourceVersion ? { resourceVersion: id.resourceVersion } : {}) } : undefined;
    return deleteAsSeen(what, this.refusals, () =>
      this.custom.deleteNamespacedCustomObject({ ...REPORTS, namespace: id.namespace ?? '', name: id.name, body: preconditions ? { preconditions } : {} }),
    );
  }
}
