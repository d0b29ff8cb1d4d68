// The pod requests a pass makes by the thousand, sent directly (direct.ts) rather than through
// client-node's CoreV1Api: the same requests (paths, queries, bodies) and the same answers to
// their callers, without its generated layers. The DELETE's answer (the whole pod) is not read
// at all (pods.ts deletePod needs its status); a LIST page is the wire's JSON as it is, without
// ObjectSerializer's walk over every field (the core reads timestamps as strings or Dates); so is
// the GET of one pod the event path decides on.
import type { V1DeleteOptions, V1Eviction } from '@kubernetes/client-node';
import type { Pod } from '../model/objects.js';
import type { DirectRequests } from './direct.js';
import { resourcePath, withQuery, type Resource } from './direct-paths.js';
import type { PodReader } from './get.js';
import type { PodListQuery, PodLister } from './list.js';
import type { RawList } from './pager.js';
import type { PodDeleter, PodEvictor, PodWriteParams } from './pods.js';

const PODS: Resource = { group: '', version: 'v1', plural: 'pods' };

/** The two writes to pods (pods.ts): a DELETE, and an eviction (whose answer, a Status, is not read either). */
export class DirectPodWrites implements PodDeleter, PodEvictor {
  constructor(private readonly direct: DirectRequests) {}

  async deleteNamespacedPod({ name, namespace, body, dryRun }: PodWriteParams<V1DeleteOptions>): Promise<number> {
    return this.direct.send('DELETE', withQuery(podPath(namespace, name), [['dryRun', dryRun]]), body);
  }

  async createNamespacedPodEviction({ name, namespace, body, dryRun }: PodWriteParams<V1Eviction>): Promise<number> {
    return this.direct.send('POST', withQuery(`${podPath(namespace, name)}/eviction`, [['dryRun', dryRun]]), body);
  }
}

const podPath = (namespace: string, name: string) => resourcePath(PODS, namespace, name);

/** The pod reads a pass and the event path make per page and per pod: LIST pages and the GET of one pod. */
export class DirectPodReads implements PodLister, PodReader {
  constructor(private readonly direct: DirectRequests) {}

  async readNamespacedPod({ name, namespace }: { name: string; namespace: string }): Promise<Pod> {
    return (await this.direct.getJson(podPath(namespace, name))) as Pod;
  }

  listNamespacedPod({ namespace, ...query }: PodListQuery & { namespace: string }): Promise<RawList<Pod>> {
    return this.list(resourcePath(PODS, namespace), query);
  }

  listPodForAllNamespaces(query: PodListQuery): Promise<RawList<Pod>> {
    return this.list(resourcePath(PODS, undefined), query);
  }

  private async list(path: string, { labelSelector, fieldSelector, limit, _continue }: PodListQuery): Promise<RawList<Pod>> {
    const query = withQuery(path, [
      ['labelSelector', labelSelector],
      ['fieldSelector', fieldSelector],
      ['limit', limit],
      ['continue', _continue],
    ]);
    return (await this.direct.getJson(query)) as RawList<Pod>;
  }
}
