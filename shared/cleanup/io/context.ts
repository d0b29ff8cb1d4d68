import type { CustomObjectsApi } from '@kubernetes/client-node';
import type { Pod } from '../../model/objects.js';
import type { Stored } from '../../model/identity.js';
import { toKubeError } from '../../kube/errors.js';
import { listPods } from '../../kube/list.js';
import { pages, type FetchPage, type RawList } from '../../kube/pager.js';
import { tallied } from '../../kube/request-tally.js';
import { controllerOf, groupOf, type Owner } from '../../selection/retention.js';
import type { SnapshotNeeds } from '../../selection/needs.js';
import type { Snapshot } from '../../selection/snapshot.js';
import type { CleanupHandle } from '../handle.js';

// Fetches the parts of a snapshot a policy reads beyond the pods (see snapshotNeeds), and
// nothing else: for the common policy this makes no request at all.

export interface Fetched {
  snapshot: Omit<Snapshot, 'pods'>;
  /** Requests sent to the API server for it (every LIST page, retries after throttling included): its own tally. */
  requests: number;
}

export function fetchContext(h: Pick<CleanupHandle, 'reader' | 'settings'>, needs: SnapshotNeeds): Promise<Fetched> {
  return tallied(async (tally) => ({ snapshot: await read(h, needs), requests: tally.sent }));
}

async function read(h: Pick<CleanupHandle, 'reader' | 'settings'>, needs: SnapshotNeeds): Promise<Fetched['snapshot']> {
  const { core, policy, scheduling } = h.reader;
  const snapshot: Fetched['snapshot'] = {};
  const jobs: Promise<void>[] = [];
  const run = (what: string, job: () => Promise<void>) =>
    jobs.push(
      job().catch((e) => {
        throw toKubeError(e, `list ${what}`);
      }),
    );
  if (needs.nodes) run('nodes', async () => void (snapshot.nodes = (await core.listNode()).items as never));
  if (needs.namespaces) run('namespaces', async () => void (snapshot.namespaces = (await core.listNamespace()).items as never));
  if (needs.pdbs) {
    run('poddisruptionbudgets', async () => {
      snapshot.pdbs = (await policy.listPodDisruptionBudgetForAllNamespaces()).items as never;
    });
  }
  if (needs.priorityClasses) {
    run('priorityclasses', async () => {
      snapshot.priorityClasses = (await scheduling.listPriorityClass()).items as never;
    });
  }
  if (needs.pvcs) {
    run('persistentvolumeclaims', async () => {
      const pvcs = await core.listPersistentVolumeClaimForAllNamespaces();
      snapshot.pvcStorageClasses = new Map(pvcs.items.map((c) => [`${c.metadata?.namespace}/${c.metadata?.name}`, c.spec?.storageClassName ?? '']));
    });
  }
  if (needs.allPods) {
    run('pods', async () => {
      const pods: Pod[] = [];
      for await (const page of listPods(core, { limit: h.settings.pageSize })) pods.push(...(page.items as Pod[]));
      snapshot.contextPods = pods;
    });
  }
  await Promise.all(jobs);
  return snapshot;
}

// kubeTidy.retention's reads (selection/retention.ts): the CronJob of each Job, and the other pods
// of one pod's owner without listing every pod.

/** Jobs, through the generic client: pod cleanup's reader has no batch client of its own. */
type JobsReader = Pick<CustomObjectsApi, 'listNamespacedCustomObject' | 'listClusterCustomObject'>;
const JOBS = { group: 'batch', version: 'v1', plural: 'jobs' } as const;

interface JobLike {
  metadata?: { uid?: string; ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[] };
}

/**
 * The generic client, when the reader has one (the runtime's and the CLI's do; a test's fake
 * may not). Without it, Jobs are not grouped under their CronJob: smaller groups, so more pods
 * kept, never fewer.
 */
function jobsReader(h: Pick<CleanupHandle, 'reader'>): JobsReader | undefined {
  return h.reader.custom;
}

/** Each Job controlled by a CronJob, with that CronJob (`namespace` omitted: every namespace, paged). `requests`: its own tally. */
export function fetchJobOwners(h: Pick<CleanupHandle, 'reader' | 'settings'>, namespace?: string): Promise<{ jobs: Map<string, Owner>; requests: number }> {
  return tallied(async (tally) => {
    const jobs = new Map<string, Owner>();
    const api = jobsReader(h);
    if (api) {
      const fetch: FetchPage<JobLike> = (page) =>
        (namespace ? api.listNamespacedCustomObject({ ...JOBS, namespace, ...page }) : api.listClusterCustomObject({ ...JOBS, ...page })) as Promise<
          RawList<JobLike>
        >;
      for await (const page of pages(fetch, {
        what: `list jobs ${namespace ? `in ${namespace}` : 'in all namespaces'}`,
        limit: h.settings.pageSize,
        onExpired: 'continue-inconsistent',
      })) {
        for (const job of page.items) {
          const c = job.metadata?.ownerReferences?.find((o) => o.controller === true);
          if (c?.kind === 'CronJob' && job.metadata?.uid) jobs.set(job.metadata.uid, { kind: c.kind, name: c.name, uid: c.uid });
        }
      }
    }
    return { jobs, requests: tally.sent };
  });
}

/** Labels every pod of an owner shares except these, which differ pod by pod or revision by revision. */
const PER_POD_LABELS: ReadonlySet<string> = new Set([
  'statefulset.kubernetes.io/pod-name',
  'apps.kubernetes.io/pod-index',
  'batch.kubernetes.io/job-completion-index',
  'controller-revision-hash',
  'pod-template-generation',
]);
const JOB_UID_LABELS = ['batch.kubernetes.io/controller-uid', 'controller-uid'] as const;
/** Only finished pods can be kept: the others are not read. */
const FINISHED = 'status.phase!=Pending,status.phase!=Running,status.phase!=Unknown';

export interface OwnerGroup {
  /** The finished pods of the pod's owner group found (the pod itself among them when it is). */
  pods: Stored<Pod>[];
  jobs: Map<string, Owner>;
  requests: number;
}

/**
 * The other finished pods of `pod`'s owner group, in its namespace, by label, at a constant
 * number of requests (one or two LISTs, however large the cluster). A Job's: one LIST of the
 * namespace's Jobs (is it a CronJob's, and which are that CronJob's other Jobs), then one
 * LIST of pods by the Jobs' controller-uid label (the label the pod itself carries: the newer
 * `batch.kubernetes.io/controller-uid`, or the older `controller-uid`). Any other owner's: one
 * LIST by the pod's own labels minus the per-pod ones, kept when controlled by the same uid.
 * What this misses (a Job whose pods carry the other label, a sibling relabelled) only makes
 * the pods found rank newer than they are: retention keeps more, never fewer.
 */
export function fetchOwnerGroup(h: Pick<CleanupHandle, 'reader' | 'settings'>, pod: Pod): Promise<OwnerGroup> {
  return tallied(async (tally) => {
    const namespace = pod.metadata.namespace ?? '';
    const owner = controllerOf(pod);
    if (!owner) return { pods: [], jobs: new Map(), requests: tally.sent };
    const labels = pod.metadata.labels ?? {};
    let selector: string;
    let jobs = new Map<string, Owner>();
    const jobKey = owner.kind === 'Job' ? JOB_UID_LABELS.find((k) => labels[k] === owner.uid) : undefined;
    if (jobKey) {
      jobs = (await fetchJobOwners(h, namespace).catch((e) => Promise.reject(toKubeError(e, `list jobs in ${namespace}`)))).jobs;
      const cron = jobs.get(owner.uid);
      const uids = cron ? [...jobs].filter(([, c]) => c.uid === cron.uid).map(([uid]) => uid) : [owner.uid];
      selector = `${jobKey} in (${uids.sort().join(',')})`;
    } else {
      selector = Object.entries(labels)
        .filter(([k]) => !PER_POD_LABELS.has(k) && !(JOB_UID_LABELS as readonly string[]).includes(k))
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
    }
    const group = groupOf(pod, jobs)!.uid;
    const found: Stored<Pod>[] = [];
    for await (const page of listPods(h.reader.core, {
      namespace,
      labelSelector: selector || undefined,
      fieldSelector: FINISHED,
      limit: h.settings.pageSize,
    })) {
      for (const p of page.items) if (groupOf(p, jobs)?.uid === group) found.push(p);
    }
    return { pods: found, jobs, requests: tally.sent };
  });
}
