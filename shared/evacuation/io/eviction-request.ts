// KEP-4563's EvictionRequest API (lifecycle.k8s.io/v1alpha1), served by Kubernetes v1.37 when
// its EvictionRequestAPI gate and the group's runtime config are on. Whether it is served is
// asked once per process and API server (discovery, shared/kube/clients.ts). When it is, an
// evacuation kube-tidy starts asks through an EvictionRequest (requester kube-tidy.dev/<function>)
// instead of evicting or migrating itself; this file is every call that path makes. Reads go
// through the custom objects client and are checked with the core's zod schemas (client-node
// has no lifecycle types); writes go through the ClusterWriter.
import type { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { groupVersionServed } from '../../kube/clients.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import { toKubeError } from '../../kube/index.js';
import { readOrAbsent } from '../../kube/read.js';
import type { DeletedAsSeen } from '../../kube/delete-as-seen.js';
import type { RemovalTicket } from '../../kube/admission.js';
import type { ClusterWriter, Gvr } from '../../kube/writer.js';
import { evictionRequestBody, EvictionRequestSchema, EvictionSchema, LIFECYCLE, type Eviction, type EvictionRequest } from '../core/eviction-request.js';
import { EVICTION_REQUEST_POD_UID_LABEL as POD_UID_LABEL } from '../../model/keys.js';

export const EVICTION_REQUEST_GROUP = LIFECYCLE.group;
export const EVICTION_REQUESTS: Gvr = { ...LIFECYCLE, plural: 'evictionrequests' };
export const EVICTIONS: Gvr = { ...LIFECYCLE, plural: 'evictions' };

export type LifecycleReader = Pick<CustomObjectsApi, 'getNamespacedCustomObject' | 'listNamespacedCustomObject' | 'listClusterCustomObject'>;

/**
 * Whether lifecycle.k8s.io/v1alpha1 is served, asked once per API server for as long as the
 * returned function is kept (the family's handle keeps one per process); the request counted
 * in `metrics` (the host's recorder).
 */
export function evictionRequestDiscovery(metrics?: MetricsRecorder): (kc: KubeConfig, timeoutMs: number) => Promise<boolean> {
  const asked = new Map<string, Promise<boolean>>();
  return (kc, timeoutMs) => {
    const key = kc.getCurrentCluster()?.server ?? '';
    let answer = asked.get(key);
    if (!answer) {
      answer = groupVersionServed(kc, LIFECYCLE.group, LIFECYCLE.version, timeoutMs, metrics).catch((e: unknown) => {
        asked.delete(key); // ask again next time
        throw toKubeError(e, 'API discovery');
      });
      asked.set(key, answer);
    }
    return answer;
  };
}

export async function getEvictionRequest(api: LifecycleReader, namespace: string, name: string): Promise<EvictionRequest | undefined> {
  const raw = await readOrAbsent(`get evictionrequest ${namespace}/${name}`, () => api.getNamespacedCustomObject({ ...EVICTION_REQUESTS, namespace, name }));
  return raw === undefined ? undefined : EvictionRequestSchema.parse(raw);
}

/** The Evictions in a namespace (one LIST, for callers asking about several pods). */
export async function evictionsIn(api: LifecycleReader, namespace: string): Promise<Eviction[]> {
  const list = (await readOrAbsent(`list evictions in ${namespace}`, () => api.listNamespacedCustomObject({ ...EVICTIONS, namespace }))) as
    { items?: unknown[] } | undefined;
  return (list?.items ?? []).map((i) => EvictionSchema.parse(i));
}

/** The Eviction the controller made for a pod (found by the target's uid; its name is "purely informative"). */
export async function evictionFor(api: LifecycleReader, namespace: string, podUid: string): Promise<Eviction | undefined> {
  return (await evictionsIn(api, namespace)).find((e) => e.spec.target.pod?.uid === podUid);
}

/**
 * Asks for the pod's eviction: creates the attempt's EvictionRequest; AlreadyExists is success
 * (another instance, or our crashed self, made it), but one that was withdrawn (a cancelled
 * evacuation of the same pod and attempt number) is asked again by setting its intent back.
 */
export async function requestEviction(
  d: { custom: LifecycleReader; writer: ClusterWriter },
  o: { namespace: string; name: string; pod: { name: string; uid: string }; requester: string },
  ticket: RemovalTicket,
): Promise<'created' | 'exists' | 'renewed'> {
  // The ticket is settled on the create's answer; a withdrawn request asked again is that start's.
  const created = await d.writer.startEvacuation(EVICTION_REQUESTS, o.namespace, evictionRequestBody(o), ticket);
  if (created === 'created') return 'created';
  const er = await getEvictionRequest(d.custom, o.namespace, o.name);
  if (!er || er.spec.intent === 'Eviction') return 'exists';
  const w = await d.writer.patchObject(
    EVICTION_REQUESTS,
    { namespace: o.namespace, name: o.name, ...(er.metadata.resourceVersion ? { resourceVersion: er.metadata.resourceVersion } : {}) },
    { spec: { intent: 'Eviction' } },
  );
  return w === 'written' ? 'renewed' : 'exists';
}

/** intent: Withdrawn (types.go: "the requester is no longer interested"). Already gone is fine. */
export async function withdrawEvictionRequest(writer: ClusterWriter, namespace: string, name: string): Promise<'written' | 'gone' | 'conflict'> {
  return writer.patchObject(EVICTION_REQUESTS, { namespace, name }, { spec: { intent: 'Withdrawn' } });
}

/**
 * Deleting counts as a withdrawal too (types.go); done once the attempt needs no record.
 * `stored`: the uid and resourceVersion it was read at, when the decision was made on it.
 */
export async function deleteEvictionRequest(
  writer: ClusterWriter,
  namespace: string,
  name: string,
  stored: { uid?: string; resourceVersion?: string } = {},
): Promise<DeletedAsSeen> {
  return writer.deleteOwnObject(EVICTION_REQUESTS, {
    namespace,
    name,
    ...(stored.uid ? { uid: stored.uid } : {}),
    ...(stored.uid && stored.resourceVersion ? { resourceVersion: stored.resourceVersion } : {}),
  });
}

/** kube-tidy's own EvictionRequests (those labelled with their pod's uid), in `namespace` or all. */
export async function ownEvictionRequests(api: LifecycleReader, namespace?: string): Promise<EvictionRequest[]> {
  const args = { ...EVICTION_REQUESTS, labelSelector: POD_UID_LABEL };
  const where = namespace ? `in ${namespace}` : 'in all namespaces';
  const list = (await readOrAbsent(`list evictionrequests ${where}`, () =>
    namespace ? api.listNamespacedCustomObject({ ...args, namespace }) : api.listClusterCustomObject(args),
  )) as { items?: unknown[] } | undefined;
  return (list?.items ?? []).map((i) => EvictionRequestSchema.parse(i));
}
