// The storm's cluster for `npm run bench event-cost` (issue 45, item 6): the scale bench's
// population recipe (scale/populate.ts: bare pods bound to plain Node objects no kubelet or
// kwok manages) grown to EVENT_COST_PODS pods of which EVENT_COST_FAILED are Failed and
// selected, the rest Succeeded (bare: kept) and Pending in the recipe's 1:2. Every row removes
// the Failed pods, so each row starts from Failed pods created again (`refillFailed`): the
// same count, the same namespaces and nodes, new names and uids. What each row costs the API
// server is read from the API server itself (`apiserver_request_total`, before and after).
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import type { KubeObject } from '../../../shared/cloudevents/index.js';
import type { Cluster } from '../../harness/index.js';
import { kubeRequest } from '../../harness/kube-http.js';
import { createPod, inParallel, NODES, prepareCluster, unthrottled, type Kind } from '../scale/populate.js';

/** Parallel writes while populating (not measured). */
const WIDTH = 96;

export interface StormSize {
  /** Pods in the cluster, the Failed ones included. */
  pods: number;
  /** Failed pods, every one selected: the storm. */
  failed: number;
}

/** The cluster's namespaces and nodes, the background pods (Succeeded and Pending), and the first Failed pods. */
export async function populateStorm(kc: KubeConfig, size: StormSize): Promise<{ namespaces: string[]; seconds: number }> {
  const t0 = performance.now();
  const namespaces = await prepareCluster(kc);
  const clients = unthrottled(kc);
  const background = size.pods - size.failed;
  // The recipe's proportions without its Failed quarter: a third Succeeded, two thirds Pending.
  const kind = (i: number): Kind => (i % 3 === 0 ? 'Succeeded' : 'Pending');
  await inParallel(background, WIDTH, (i) => createPod(clients, namespaces[i % namespaces.length]!, `b-${i}`, `scale-node-${i % NODES}`, kind(i)));
  clients.close();
  await refillFailed(kc, namespaces, size.failed, 0);
  return { namespaces, seconds: Math.round((performance.now() - t0) / 100) / 10 };
}

/** `count` Failed pods named f-<round>-<i>, spread over the namespaces and nodes as the recipe spreads them. */
export async function refillFailed(kc: KubeConfig, namespaces: string[], count: number, round: number): Promise<void> {
  const clients = unthrottled(kc);
  await inParallel(count, WIDTH, (i) => createPod(clients, namespaces[i % namespaces.length]!, `f-${round}-${i}`, `scale-node-${i % NODES}`, 'Failed'));
  clients.close();
}

/** Every Failed pod of the storm as the API server stores it, with the apiVersion and kind an event's object carries (a LIST's items have neither). */
export async function listFailed(kc: KubeConfig): Promise<KubeObject[]> {
  const { core, close } = unthrottled(kc);
  const pods: V1Pod[] = [];
  let token: string | undefined;
  do {
    const page = await core.listPodForAllNamespaces({ fieldSelector: 'status.phase=Failed', labelSelector: 'bench=scale', limit: 5000, _continue: token });
    pods.push(...page.items);
    token = page.metadata?._continue || undefined;
  } while (token);
  close();
  // Through JSON: the wire's form (timestamps as strings), as the watch gave it to the event's sender.
  return pods.map((p) => ({ apiVersion: 'v1', kind: 'Pod', ...(JSON.parse(JSON.stringify(p)) as object) }) as KubeObject);
}

/** The API server's request counts by "VERB resource[/subresource]" (watches, leases and non-resource paths left out). */
export async function apiRequests(cluster: Cluster): Promise<Map<string, number>> {
  const { status, body } = await kubeRequest(cluster.endpoint, 'GET', '/metrics');
  if (status !== 200) throw new Error(`GET /metrics answered ${status}`);
  const counts = new Map<string, number>();
  for (const line of body.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const label = (name: string) => new RegExp(`[{,]${name}="([^"]*)"`).exec(line)?.[1] ?? '';
    const [verb, resource, subresource] = [label('verb'), label('resource'), label('subresource')];
    if (verb === 'WATCH' || resource === '' || resource === 'leases') continue;
    const key = `${verb} ${resource}${subresource ? `/${subresource}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

/** What a row cost the API server: `after` less `before`, by kind, the total and the Events written. */
export function requestsBetween(before: Map<string, number>, after: Map<string, number>) {
  const byKind = Object.fromEntries([...after].map(([k, n]) => [k, n - (before.get(k) ?? 0)] as const).filter(([, n]) => n > 0));
  const total = Object.values(byKind).reduce((a, b) => a + b, 0);
  // core/v1 and events.k8s.io/v1 Events alike (both are the resource "events"): a create, or a series' update.
  const eventsWritten = Object.entries(byKind)
    .filter(([k]) => /^(POST|PUT|PATCH|APPLY) events$/.test(k))
    .reduce((n, [, c]) => n + c, 0);
  return { byKind, total, eventsWritten };
}
