// Listing every object of a job kind (or Workloads) in one cluster, page by page, through the
// cluster's CustomObjectsApi (it addresses any /apis/<group>/<version> resource, batch/v1
// Jobs included). The clients are shared/kube's (kubeClients): one timeout, kept-alive
// connections, the request-path guard.
import type { KubeClients } from '../../kube/clients.js';
import { toKubeError } from '../../kube/errors.js';
import type { JobKind } from '../core/kinds.js';
import type { RemoteObject } from '../core/remote-object.js';

export interface Listed {
  items: RemoteObject[];
  requests: number;
}

/**
 * Every object of a kind (all namespaces). Throws TransientKubeError / KubeRequestError; a
 * 404 (the kind is not installed there) as KubeRequestError kind not-found.
 */
export async function listAll(api: Pick<KubeClients, 'custom'>, k: JobKind, labelSelector?: string, limit = 500): Promise<Listed> {
  const out: Listed = { items: [], requests: 0 };
  let token: string | undefined;
  do {
    out.requests++;
    let page: { items?: RemoteObject[]; metadata?: { continue?: string } };
    try {
      page = await api.custom.listClusterCustomObject({ group: k.group, version: k.version, plural: k.plural, labelSelector, limit, _continue: token });
    } catch (e) {
      throw toKubeError(e, `list ${k.plural}.${k.group}`);
    }
    out.items.push(...(page.items ?? []));
    token = page.metadata?.continue || undefined;
  } while (token);
  return out;
}
