// The requests cleanup beyond pods makes per object (shared/objects: Jobs, claims, Kueue
// Workloads), sent directly (direct.ts) as the pods' are (direct-pods.ts), rather than through
// client-node's BatchV1Api, CoreV1Api and CustomObjectsApi: the same paths, queries and bodies,
// the same answers to their callers, without their generated layers. A LIST page and the GET
// of one object are the wire's JSON as it is (timestamps stay strings, which the family's
// reader takes as they are): no ObjectSerializer walk over every field of every Job's pod
// template. A DELETE's answer (the whole object, or its Status) is not read at all: the
// writer (writer.ts deleteAsRead) needs its status, nothing more. Reads and writes are apart,
// as the pods' are, so a host fences the writes alone (standalone's Lease: fence.ts).
import type { DirectRequests } from './direct.js';
import { resourcePath, withQuery, type Resource } from './direct-paths.js';
import type { RawList } from './pager.js';

/** A page's query, as the pager (pager.ts) asks for it. */
export interface ObjectPageQuery {
  limit?: number;
  _continue?: string;
  /** Only the objects this label selector matches, chosen by the API server (a ttl rule that reads a label alone: ttl-read.ts). */
  labelSelector?: string;
}

/** The objects' reads: LIST pages (in one namespace or in all) and the GET of one object (namespace undefined: a cluster-scoped one). */
export interface ObjectReads {
  list<T>(r: Resource, namespace: string | undefined, page: ObjectPageQuery): Promise<RawList<T>>;
  get<T>(r: Resource, namespace: string | undefined, name: string): Promise<T>;
  /** What a group/version serves (its APIResourceList: each resource's name, kind, scope and verbs), as discovery reads it. */
  discover(group: string, version: string): Promise<ServedResources>;
}

/** An APIResourceList, as much of it as a TTL rule reads: which plural serves a kind, whether namespaced, with which verbs. */
export interface ServedResources {
  resources?: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
}

/** What a DELETE names: the object, the DeleteOptions body (preconditions, propagation) and the dry run's query. */
export interface ObjectDeleteParams {
  resource: Resource;
  /** Absent: a cluster-scoped object (a Namespace a TTL rule deletes). */
  namespace?: string;
  name: string;
  body: object;
  dryRun?: string;
}

/** The objects' one write. Its name starts with `delete`: a host's fence (fence.ts) holds it as every client's writes. */
export interface ObjectDeleter {
  deleteNamespacedObject(p: ObjectDeleteParams): Promise<unknown>;
}

export class DirectObjectReads implements ObjectReads {
  constructor(private readonly direct: DirectRequests) {}

  async list<T>(r: Resource, namespace: string | undefined, { limit, _continue, labelSelector }: ObjectPageQuery): Promise<RawList<T>> {
    // In the order client-node writes them (labelSelector before limit).
    const path = withQuery(resourcePath(r, namespace), [
      ['labelSelector', labelSelector],
      ['limit', limit],
      ['continue', _continue],
    ]);
    return (await this.direct.getJson(path)) as RawList<T>;
  }

  async get<T>(r: Resource, namespace: string | undefined, name: string): Promise<T> {
    return (await this.direct.getJson(resourcePath(r, namespace, name))) as T;
  }

  async discover(group: string, version: string): Promise<ServedResources> {
    const root = group === '' ? `/api/${encodeURIComponent(version)}` : `/apis/${encodeURIComponent(group)}/${encodeURIComponent(version)}`;
    return (await this.direct.getJson(root)) as ServedResources;
  }
}

export class DirectObjectWrites implements ObjectDeleter {
  constructor(private readonly direct: DirectRequests) {}

  async deleteNamespacedObject({ resource, namespace, name, body, dryRun }: ObjectDeleteParams): Promise<number> {
    return this.direct.send('DELETE', withQuery(resourcePath(resource, namespace, name), [['dryRun', dryRun]]), body);
  }
}
