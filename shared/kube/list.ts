// Paginated LIST of pods: a sweep holds one page at a time, so its memory is bounded by
// the page size, not by the cluster. Its requests are counted as they are sent, in the tally
// of whatever operation lists (request-tally.ts).
//
// Expired continue tokens: the pager's 'continue-inconsistent' recovery (pager.ts says why).
import type { V1Pod } from '@kubernetes/client-node';
import type { Stored } from '../model/identity.js';
import type { Pod } from '../model/objects.js';
import { toPod } from './from-client.js';
import { pages, type RawList } from './pager.js';

export interface ListPodsOptions {
  /** Omit for all namespaces. */
  namespace?: string;
  labelSelector?: string;
  /** E.g. "status.phase=Failed", "spec.nodeName=n1" (the API server supports few fields). */
  fieldSelector?: string;
  /** Page size; default 500 (kubectl's). */
  limit?: number;
  /** Go on from this continue token, with the same selectors (pager.ts). */
  from?: string;
}

export interface PodPage {
  /** The core's Pod type; at runtime client-node's objects, timestamps as Date. */
  items: Stored<Pod>[];
  /** 1 for the first page. */
  page: number;
  /** From here on the pages come from a newer snapshot than the first (see above). */
  inconsistent: boolean;
  /** The server's estimate of items still to come, when it gives one. */
  remainingItemCount?: number;
  /** The continue token of the next page (none: this was the last). */
  next?: string;
}

/** One LIST request's query, as client-node names it. */
export interface PodListQuery {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  limit?: number | undefined;
  _continue?: string | undefined;
}

/**
 * Who answers the LIST: client-node's CoreV1Api (typed objects, timestamps as Date) or the
 * direct request (direct-pods.ts: the wire's JSON, timestamps as strings); the core reads both.
 */
export interface PodLister {
  listNamespacedPod(param: PodListQuery & { namespace: string }): Promise<RawList<V1Pod | Pod>>;
  listPodForAllNamespaces(param: PodListQuery): Promise<RawList<V1Pod | Pod>>;
}

/** Always yields at least one page (possibly empty): an empty list is a page too. */
export async function* listPods(core: PodLister, opts: ListPodsOptions = {}): AsyncGenerator<PodPage, void, undefined> {
  const { namespace, labelSelector, fieldSelector, limit, from } = opts;
  const fetch = (page: { limit?: number; _continue?: string }) =>
    namespace
      ? core.listNamespacedPod({ namespace, labelSelector, fieldSelector, ...page })
      : core.listPodForAllNamespaces({ labelSelector, fieldSelector, ...page });
  const what = `list pods ${namespace ? `in ${namespace}` : 'in all namespaces'}`;
  for await (const p of pages(fetch, { what, limit, onExpired: 'continue-inconsistent', ...(from ? { from } : {}) })) {
    const { page, inconsistent, remainingItemCount, next } = p;
    yield {
      items: p.items.map(toPod),
      page,
      inconsistent,
      ...(remainingItemCount === undefined ? {} : { remainingItemCount }),
      ...(next ? { next } : {}),
    };
    // The consumer has its own array and asks for the next page: this generator's hold on the
    // pods (its loop variable lives on while the next page is read) is let go (issue 27).
    p.items.length = 0;
  }
}
