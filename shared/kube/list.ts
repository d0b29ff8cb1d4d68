// Paginated LIST of pods: a sweep holds one page at a time, so its memory is bounded by
// the page size, not by the cluster. Each page says how many requests were made so far, for
// the benchmarks' "requests per sweep".
//
// Expired continue tokens (410, after etcd compacted the snapshot the pages were read from):
// we continue with the API server's own "inconsistent" token when it sends one, and mark
// the page. A sweep does not need a consistent snapshot: every write re-checks the pod's uid,
// and restarting would see (and count against limits) the pages already handled. Without
// such a token the LIST fails with a TransientKubeError, and the next sweep starts afresh.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { Stored } from '../model/identity.js';
import type { Pod } from '../model/objects.js';
import { classifyKubeError, toKubeError } from './errors.js';
import { toPod } from './from-client.js';

export interface ListPodsOptions {
  /** Omit for all namespaces. */
  namespace?: string;
  labelSelector?: string;
  /** E.g. "status.phase=Failed", "spec.nodeName=n1" (the API server supports few fields). */
  fieldSelector?: string;
  /** Page size; default 500 (kubectl's). */
  limit?: number;
}

export interface PodPage {
  /** The core's Pod type; at runtime client-node's objects, timestamps as Date. */
  items: Stored<Pod>[];
  /** 1 for the first page. */
  page: number;
  /** Requests made so far, this one included. */
  requests: number;
  /** From here on the pages come from a newer snapshot than the first (see above). */
  inconsistent: boolean;
  /** The server's estimate of items still to come, when it gives one. */
  remainingItemCount?: number;
}

export type PodLister = Pick<CoreV1Api, 'listNamespacedPod' | 'listPodForAllNamespaces'>;

/** Always yields at least one page (possibly empty), so the request count is always seen. */
export async function* listPods(core: PodLister, opts: ListPodsOptions = {}): AsyncGenerator<PodPage, void, undefined> {
  const { namespace, labelSelector, fieldSelector, limit = 500 } = opts;
  const where = namespace ? `in ${namespace}` : 'in all namespaces';
  let token: string | undefined;
  let requests = 0;
  let page = 0;
  let inconsistent = false;
  let expiredInARow = 0;
  do {
    const params = { labelSelector, fieldSelector, limit, _continue: token };
    requests += 1;
    let list;
    try {
      list = namespace ? await core.listNamespacedPod({ namespace, ...params }) : await core.listPodForAllNamespaces(params);
    } catch (error) {
      const failure = classifyKubeError(error);
      // A fresh inconsistent token reads the latest state and cannot expire at once; the
      // bound only guards against a server that keeps answering 410.
      if (token && failure.kind === 'expired' && failure.continueToken && expiredInARow < 3) {
        expiredInARow += 1;
        token = failure.continueToken;
        inconsistent = true;
        continue;
      }
      throw toKubeError(error, `list pods ${where} (page ${page + 1})`);
    }
    page += 1;
    expiredInARow = 0;
    token = list.metadata?._continue || undefined;
    const remaining = list.metadata?.remainingItemCount;
    yield { items: list.items.map(toPod), page, requests, inconsistent, ...(remaining === undefined ? {} : { remainingItemCount: remaining }) };
  } while (token);
}
