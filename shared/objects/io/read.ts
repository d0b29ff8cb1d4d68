// What the object-cleanup core reads, from the API server: the objects the rules name (Jobs,
// claims, Kueue Workloads) and the context their owner rules need (CronJobs' history limits;
// for claims: the pods, workload templates and StatefulSets that name them, and the volumes'
// reclaim policies). Only what the rules' kinds need is listed, every list to the end (one
// pager, `listEverything`: "not listed" must mean "not there" before a claim counts as unnamed).
// A Workload rule in a cluster without Kueue reads no Workloads and says so.
// An event reads one namespace (`namespace`): every owner rule is namespaced (a CronJob's history,
// keepLast per owner, the pods, templates and StatefulSets naming a claim), so the event's object
// is decided on the same context as in a full read, at the cost of its namespace alone.
import type {
  V1CronJob,
  V1DaemonSet,
  V1Deployment,
  V1Job,
  V1ObjectMeta,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1PodSpec,
  V1ReplicaSet,
  V1StatefulSet,
} from '@kubernetes/client-node';
import type { AppsV1Api, BatchV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { ObjectReads } from '../../kube/direct-objects.js';
import type { Resource } from '../../kube/direct-paths.js';
import { classifyKubeError, failureKindOf } from '../../kube/errors.js';
import { listEverything, type FetchPage } from '../../kube/pager.js';
import type { ObjectKind, ObjectRule } from '../../policy/objects-schema.js';
import type { ObjectContext, StatefulSetClaims, StoredCondition, StoredObject } from '../core/model.js';

export interface ObjectsReader {
  core: CoreV1Api;
  batch: BatchV1Api;
  apps: AppsV1Api;
  custom: CustomObjectsApi;
  /**
   * What the family reads by the hundred, directly (kube/direct-objects.ts): every LIST page and
   * GET here is the wire's JSON, never decoded by client-node's models (a Job's pod template
   * included), and only what `storedOf` and the context keep is looked at.
   */
  objectReads: ObjectReads;
}

/** Kueue's Workload, at the version its CRD stores (as multikueue/core/kinds.ts reads it). */
export const WORKLOADS = { group: 'kueue.x-k8s.io', version: 'v1beta2', plural: 'workloads' } as const;

/** The resources the family reads, as the wire names them. */
export const RESOURCES = {
  jobs: { group: 'batch', version: 'v1', plural: 'jobs' },
  cronJobs: { group: 'batch', version: 'v1', plural: 'cronjobs' },
  claims: { group: '', version: 'v1', plural: 'persistentvolumeclaims' },
  volumes: { group: '', version: 'v1', plural: 'persistentvolumes' },
  pods: { group: '', version: 'v1', plural: 'pods' },
  statefulSets: { group: 'apps', version: 'v1', plural: 'statefulsets' },
  deployments: { group: 'apps', version: 'v1', plural: 'deployments' },
  replicaSets: { group: 'apps', version: 'v1', plural: 'replicasets' },
  daemonSets: { group: 'apps', version: 'v1', plural: 'daemonsets' },
  workloads: WORKLOADS,
} as const satisfies Record<string, Resource>;

/** The resource each kind a rule names is read and deleted as. */
export const RESOURCE_OF: Record<ObjectKind, Resource> = { Job: RESOURCES.jobs, PersistentVolumeClaim: RESOURCES.claims, Workload: WORKLOADS };

export interface ObjectsRead {
  objects: StoredObject[];
  ctx: ObjectContext;
  /** Kinds a rule names that the cluster does not serve (Workload without Kueue). */
  notServed: ObjectKind[];
}

/** The context as it is read: filled by each list, then handed to the core as an ObjectContext. */
interface Building {
  cronJobs: Map<string, { successful: number; failed: number }>;
  statefulSets: StatefulSetClaims[];
  templateClaims: Set<string>;
  podClaims: Map<string, string>;
  volumes: Map<string, string>;
}

const building = (): Building => ({ cronJobs: new Map(), statefulSets: [], templateClaims: new Set(), podClaims: new Map(), volumes: new Map() });

/** Metadata as the wire has it (times as strings) or as client-node decodes it (times as Dates). */
type Meta = Pick<V1ObjectMeta, 'namespace' | 'name' | 'uid' | 'resourceVersion' | 'labels' | 'ownerReferences'> & { creationTimestamp?: Date | string };
type Condition = { type: string; status: string; reason?: string; lastTransitionTime?: Date | string };

const time = (t: Date | string | undefined): string | undefined => (t instanceof Date ? t.toISOString() : t);

/** The stored object the core reads: identity, labels, owners, conditions with their times as the API server wrote them. */
export function storedOf(
  kind: ObjectKind,
  apiVersion: string,
  meta: Meta | undefined,
  conditions: readonly Condition[] | undefined,
  volumeName?: string,
): StoredObject | undefined {
  if (!meta?.name || !meta.namespace || !meta.uid || !meta.resourceVersion) return undefined;
  return {
    kind,
    apiVersion,
    namespace: meta.namespace,
    name: meta.name,
    uid: meta.uid,
    resourceVersion: meta.resourceVersion,
    ...(meta.creationTimestamp ? { creationTimestamp: time(meta.creationTimestamp)! } : {}),
    ...(meta.labels ? { labels: meta.labels } : {}),
    ...(meta.ownerReferences
      ? {
          ownerReferences: meta.ownerReferences.map((r) => ({
            apiVersion: r.apiVersion,
            kind: r.kind,
            name: r.name,
            uid: r.uid,
            controller: r.controller === true,
          })),
        }
      : {}),
    conditions: (conditions ?? []).map((c): StoredCondition => ({
      type: c.type,
      status: c.status,
      ...(c.reason ? { reason: c.reason } : {}),
      ...(c.lastTransitionTime ? { lastTransitionTime: time(c.lastTransitionTime)! } : {}),
    })),
    ...(volumeName ? { volumeName } : {}),
  };
}

const all = async <T, R>(what: string, fetch: FetchPage<T>, keep: (item: T) => R | undefined): Promise<R[]> =>
  (await listEverything(fetch, { what }, keep)).items;

/**
 * One resource's pages, in every namespace or in one, as the wire has them: client-node's types
 * describe the fields read (timestamps aside, which stay strings: `storedOf` takes both).
 */
const pagesOf =
  <T>(r: ObjectsReader, resource: Resource, namespace: string | undefined): FetchPage<T> =>
  (p) =>
    r.objectReads.list<T>(resource, namespace, p);

const claimsOf = (spec: V1PodSpec | undefined): string[] =>
  (spec?.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : []));

const storedJob = (j: V1Job) => storedOf('Job', 'batch/v1', j.metadata, j.status?.conditions);

async function jobs(r: ObjectsReader, ctx: Building, namespace: string | undefined): Promise<StoredObject[]> {
  const cronJobs = await all('list cronjobs', pagesOf<V1CronJob>(r, RESOURCES.cronJobs, namespace), (c) => c);
  // batch/v1's defaults: 3 successful, 1 failed.
  for (const c of cronJobs)
    ctx.cronJobs.set(`${c.metadata?.namespace}/${c.metadata?.name}`, {
      successful: c.spec?.successfulJobsHistoryLimit ?? 3,
      failed: c.spec?.failedJobsHistoryLimit ?? 1,
    });
  return all('list jobs', pagesOf<V1Job>(r, RESOURCES.jobs, namespace), storedJob);
}

/** A list over every namespace, or one (a write's re-check reads only the claim's namespace). */
type Lists = {
  pods: FetchPage<V1Pod>;
  statefulSets: FetchPage<V1StatefulSet>;
  templates: FetchPage<{ metadata?: V1ObjectMeta; spec?: V1PodSpec }>[];
};

function listsIn(r: ObjectsReader, namespace: string | undefined): Lists {
  // Each workload as the pod spec its template holds.
  const spec =
    <T extends { metadata?: V1ObjectMeta }>(
      resource: Resource,
      of: (t: T) => V1PodSpec | undefined,
    ): FetchPage<{ metadata?: V1ObjectMeta; spec?: V1PodSpec }> =>
    async (p) => {
      const list = await pagesOf<T>(r, resource, namespace)(p);
      return { ...list, items: (list.items ?? []).map((t) => ({ metadata: t.metadata, spec: of(t) })) };
    };
  return {
    pods: pagesOf<V1Pod>(r, RESOURCES.pods, namespace),
    statefulSets: pagesOf<V1StatefulSet>(r, RESOURCES.statefulSets, namespace),
    templates: [
      spec<V1Deployment>(RESOURCES.deployments, (d) => d.spec?.template.spec),
      spec<V1ReplicaSet>(RESOURCES.replicaSets, (d) => d.spec?.template?.spec),
      spec<V1DaemonSet>(RESOURCES.daemonSets, (d) => d.spec?.template.spec),
      spec<V1Job>(RESOURCES.jobs, (d) => d.spec?.template.spec),
      spec<V1CronJob>(RESOURCES.cronJobs, (d) => d.spec?.jobTemplate.spec?.template.spec),
    ],
  };
}

const retentionOf = (s: V1StatefulSet): StatefulSetClaims => {
  const retention = s.spec?.persistentVolumeClaimRetentionPolicy;
  return {
    namespace: s.metadata?.namespace ?? '',
    name: s.metadata?.name ?? '',
    replicas: s.spec?.replicas ?? 1,
    templates: (s.spec?.volumeClaimTemplates ?? []).map((t) => t.metadata?.name ?? '').filter(Boolean),
    whenScaled: retention?.whenScaled === 'Delete' ? 'Delete' : 'Retain',
    whenDeleted: retention?.whenDeleted === 'Delete' ? 'Delete' : 'Retain',
  };
};

/**
 * What names a claim: pods not finished, workload templates, StatefulSets; and the volumes'
 * reclaim policies (every volume, or those `volumes` names). In every namespace, or in one.
 */
async function claimContext(r: ObjectsReader, ctx: Building, scope: { namespace?: string; volumes?: readonly string[] } = {}): Promise<void> {
  const lists = listsIn(r, scope.namespace);
  const named = (ns: string | undefined, spec: V1PodSpec | undefined) => claimsOf(spec).forEach((c) => ctx.templateClaims.add(`${ns}/${c}`));
  const [pods, sets, volumes, ...templates] = await Promise.all([
    all('list pods', lists.pods, (pod) => (['Succeeded', 'Failed'].includes(pod.status?.phase ?? '') ? undefined : pod)),
    all('list statefulsets', lists.statefulSets, (s) => s),
    // undefined: every volume; else those named (none for an unbound claim), a GET each.
    scope.volumes === undefined
      ? all('list persistentvolumes', pagesOf<V1PersistentVolume>(r, RESOURCES.volumes, undefined), (v) => v)
      : Promise.all(scope.volumes.map((name) => readVolume(r, name))).then((vs) => vs.flatMap((v) => (v ? [v] : []))),
    ...lists.templates.map((fetch) => all('list workloads', fetch, (t) => t)),
  ]);
  for (const pod of pods)
    for (const c of claimsOf(pod.spec)) ctx.podClaims.set(`${pod.metadata?.namespace}/${c}`, `${pod.metadata?.namespace}/${pod.metadata?.name}`);
  for (const list of templates) for (const t of list) named(t.metadata?.namespace, t.spec);
  for (const s of sets) named(s.metadata?.namespace, s.spec?.template.spec);
  ctx.statefulSets = sets.map(retentionOf);
  for (const v of volumes) if (v.metadata?.name) ctx.volumes.set(v.metadata.name, v.spec?.persistentVolumeReclaimPolicy ?? 'Delete');
}

/** One object as the wire has it; undefined when it is not there. */
export const readRaw = <T>(r: ObjectsReader, resource: Resource, at: { namespace?: string; name: string }): Promise<T | undefined> =>
  r.objectReads.get<T>(resource, at.namespace, at.name).then(
    (o) => o,
    (e: unknown) => (classifyKubeError(e).kind === 'not-found' ? undefined : Promise.reject(e)),
  );

/** One volume; undefined when it is not there (its claim's reclaim policy is then unknown, and the claim kept). */
const readVolume = (r: ObjectsReader, name: string) => readRaw<V1PersistentVolume>(r, RESOURCES.volumes, { name });

/** The context a claim's write is checked against again: its namespace's pods and workloads, its volume. */
export async function claimContextFor(r: ObjectsReader, claim: StoredObject): Promise<ObjectContext> {
  const ctx = building();
  await claimContext(r, ctx, { namespace: claim.namespace, volumes: claim.volumeName ? [claim.volumeName] : [] });
  return ctx;
}

const storedClaim = (c: V1PersistentVolumeClaim) =>
  storedOf('PersistentVolumeClaim', 'v1', c.metadata, c.status?.conditions as Condition[] | undefined, c.spec?.volumeName);

async function claims(r: ObjectsReader, ctx: Building, namespace: string | undefined): Promise<StoredObject[]> {
  const list = pagesOf<V1PersistentVolumeClaim>(r, RESOURCES.claims, namespace);
  if (namespace === undefined) {
    const [items] = await Promise.all([all('list persistentvolumeclaims', list, storedClaim), claimContext(r, ctx)]);
    return items;
  }
  // One namespace: its claims first, then only the volumes they are bound to (never every volume of the cluster).
  const items = await all('list persistentvolumeclaims', list, storedClaim);
  await claimContext(r, ctx, { namespace, volumes: [...new Set(items.flatMap((c) => (c.volumeName ? [c.volumeName] : [])))] });
  return items;
}

type RawWorkload = { metadata?: Meta; status?: { conditions?: Condition[] } };

const storedWorkload = (w: RawWorkload) => storedOf('Workload', `${WORKLOADS.group}/${WORKLOADS.version}`, w.metadata, w.status?.conditions);

async function workloads(r: ObjectsReader, namespace: string | undefined): Promise<StoredObject[] | 'not-served'> {
  try {
    return await all('list workloads', pagesOf<RawWorkload>(r, WORKLOADS, namespace), storedWorkload);
  } catch (e) {
    // The pager wrapped the 404 (a cluster without Kueue's CRDs): its failure says so.
    if (failureKindOf(e) === 'not-found') return 'not-served';
    throw e;
  }
}

/** One object of `kind` as stored now, read by name (the wire's JSON); undefined when it is not there. */
export async function readStored(r: ObjectsReader, kind: ObjectKind, at: { namespace: string; name: string }): Promise<StoredObject | undefined> {
  if (kind === 'Job') return mapped(await readRaw<V1Job>(r, RESOURCES.jobs, at), storedJob);
  if (kind === 'PersistentVolumeClaim') return mapped(await readRaw<V1PersistentVolumeClaim>(r, RESOURCES.claims, at), storedClaim);
  return mapped(await readRaw<RawWorkload>(r, WORKLOADS, at), storedWorkload);
}

const mapped = <T>(o: T | undefined, of: (o: T) => StoredObject | undefined) => (o === undefined ? undefined : of(o));

export async function readObjects(r: ObjectsReader, rules: readonly ObjectRule[], opts: { namespace?: string } = {}): Promise<ObjectsRead> {
  const { namespace } = opts;
  const kinds = new Set(rules.map((x) => x.kind));
  const ctx = building();
  const notServed: ObjectKind[] = [];
  const found = await Promise.all([
    kinds.has('Job') ? jobs(r, ctx, namespace) : [],
    kinds.has('PersistentVolumeClaim') ? claims(r, ctx, namespace) : [],
    kinds.has('Workload') ? workloads(r, namespace) : [],
  ]);
  if (found[2] === 'not-served') notServed.push('Workload');
  return { objects: found.flatMap((f) => (f === 'not-served' ? [] : f)), ctx, notServed };
}
