// Listing every object of a job kind (or Workloads) in one cluster, page by page, through the
// cluster's CustomObjectsApi (it addresses any /apis/<group>/<version> resource, batch/v1
// Jobs included). The clients are shared/kube's (kubeClients): one timeout, kept-alive
// connections, the request-path guard.
import type { KubeClients } from '../../kube/clients.js';
import { listEverything, type RawList } from '../../kube/pager.js';
import type { JobKind } from '../core/kinds.js';
import type { RemoteObject } from '../core/remote-object.js';

export interface Listed<T = RemoteObject> {
  items: T[];
  requests: number;
}

/**
 * Every object of a kind (all namespaces), one consistent snapshot: an expired continue token
 * restarts with a full list (kube/pager.ts), since a missing object means "gone" here. Each
 * object is kept as `keep` maps it, page by page (undefined: left out), never whole: a worker
 * may hold 150,000 Jobs. Throws TransientKubeError / KubeRequestError; a 404 (the kind is not
 * installed there) as KubeRequestError kind not-found.
 */
export function listEach<T>(
  api: Pick<KubeClients, 'custom'>,
  k: JobKind,
  keep: (o: RemoteObject) => T | undefined,
  labelSelector?: string,
  limit = 500,
): Promise<Listed<T>> {
  const fetch = (page: { limit?: number; _continue?: string }): Promise<RawList<RemoteObject>> =>
    api.custom.listClusterCustomObject({ group: k.group, version: k.version, plural: k.plural, labelSelector, ...page });
  return listEverything(fetch, { what: `list ${k.plural}.${k.group}`, limit }, keep);
}
