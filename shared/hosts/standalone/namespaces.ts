// The namespaces `selectors.namespaces` picks, kept current: what Knative's ApiServerSource
// does with its namespaceSelector (its reconciler resolves the matching namespaces and the
// adapter watches only those), done here by one LIST and WATCH of namespaces with the selector
// pushed to the API server. A namespace whose labels stop matching leaves the set: the
// server sends DELETED for an object that leaves a label-selected watch. Events of objects
// in other namespaces are not delivered. The set is what the server says now, so an event
// in a namespace created a moment ago may be missed; the sweep covers it, as it covers any
// object that existed before the watch.
import { KubernetesObjectApi, type KubeConfig } from '@kubernetes/client-node';
import { listEverything } from '../../kube/pager.js';
import { startKindWatch, type KindWatch } from '../bridge/watch.js';
import type { Logger } from '../bridge/log.js';

export interface NamespaceSet {
  has(namespace: string): boolean;
  size(): number;
  stop(): Promise<void>;
}

const NAMESPACE = { kind: 'Namespace', apiVersion: 'v1', resource: 'namespaces' } as const;
const PAGE = 500;

export async function watchNamespaces(o: { kubeConfig: KubeConfig; labelSelector: string; log: Logger }): Promise<NamespaceSet> {
  const objects = KubernetesObjectApi.makeApiClient(o.kubeConfig);
  let names = new Set<string>();

  /**
   * Every matching namespace through the one pager (kube/pager.ts): a consistent snapshot, an
   * expired continue token restarting as one full list, since a namespace missing from the set
   * means its events are dropped. Returns the list's resourceVersion, where the watch starts.
   */
  const listAll = async (): Promise<string> => {
    const fetch = (page: { limit?: number; _continue?: string }) =>
      objects.list(
        NAMESPACE.apiVersion,
        NAMESPACE.kind,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        o.labelSelector || undefined,
        page.limit,
        page._continue,
      );
    const listed = await listEverything(fetch, { what: 'list namespaces', limit: PAGE });
    names = new Set(listed.items.flatMap((ns) => (ns.metadata?.name ? [ns.metadata.name] : [])));
    return listed.resourceVersion ?? '';
  };

  const from = await listAll();
  o.log.info({ labelSelector: o.labelSelector, namespaces: names.size }, 'watching events only in the namespaces selectors.namespaces picks');
  const watch: KindWatch = await startKindWatch({
    kubeConfig: o.kubeConfig,
    kind: NAMESPACE,
    ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}),
    startAt: from,
    log: o.log,
    onEvent: (verb, ns) => {
      if (verb === 'delete') names.delete(ns.metadata.name);
      else names.add(ns.metadata.name);
    },
    // After 410 Gone the changes in between were not seen: read the whole set again.
    onGap: () =>
      void listAll().catch((e: unknown) => o.log.warn({ error: (e as Error).message }, 'could not re-list namespaces after a watch gap; keeping the last set')),
  });
  return { has: (ns) => names.has(ns), size: () => names.size, stop: () => watch.stop() };
}
