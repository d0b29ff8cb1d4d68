// API clients for one worker (or the manager): core for pods and ConfigMaps, custom objects
// for every job kind (CustomObjectsApi addresses any /apis/<group>/<version> resource,
// batch/v1 Jobs included). Same rules as shared/kube/clients.ts: a per-request timeout, so a
// dead worker answers "unreachable" instead of hanging the function, and kept-alive
// connections (one TLS handshake per worker, not per request).
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { clientConfiguration } from '../kube/clients.js';
import { toKubeError } from '../kube/index.js';
import type { JobKind } from './kinds.js';

export interface ApiClients {
  core: CoreV1Api;
  custom: CustomObjectsApi;
  /** Where it points, for logs: never the credentials. */
  close(): void;
}

export interface ApiClientOptions {
  timeoutMs: number;
  onRequest?: (method: string, url: string) => void;
}

export function apiClients(kc: KubeConfig, { timeoutMs, onRequest }: ApiClientOptions): ApiClients {
  const { configuration, close } = clientConfiguration(kc, { timeoutMs, onRequest });
  return { core: new CoreV1Api(configuration), custom: new CustomObjectsApi(configuration), close };
}

/** The fields of any object that cleanup reads. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string | Date;
  ownerReferences?: { uid: string; kind: string; controller?: boolean }[];
  creationTimestamp?: string | Date;
}

export interface AnyObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  status?: { phase?: string };
}

export interface Listed {
  items: AnyObject[];
  requests: number;
}

/**
 * Every object of a kind (all namespaces), page by page. Throws TransientKubeError /
 * KubeRequestError; a 404 (the kind is not installed there) as KubeRequestError kind not-found.
 */
export async function listAll(api: ApiClients, k: JobKind, labelSelector?: string, limit = 500): Promise<Listed> {
  const out: Listed = { items: [], requests: 0 };
  let token: string | undefined;
  do {
    out.requests++;
    let page: { items?: AnyObject[]; metadata?: { continue?: string } };
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
