// Bench `event-cost` (issue 35): what a removal costs on the event path, to set beside the
// sweep's (scale-snapshot.ts) and PodGC's. N bare pods (1,000 by default, EVENT_COST_PODS)
// fail with the selected exit code on a kwok node; kwok is then stopped and the control plane
// left to go idle; then each pod is sent once, as a Knative ApiServerSource `update` event of
// its Failed object, to `podTerminated`, 4 in flight (the bridge's default). The function is
// the production bundle on Node 22 with the image's heap limit, as podTerminated's
// ServiceAccount, Events off (as the sweep's figures).
// Its CPU: utime + stime of that process (/proc) from the first event to the last answer,
// start-up apart (the Kubernetes client loads on the first event that needs it: in the figure,
// spread over the N). Its API requests: not in podTerminated's answers, so counted on the API
// server, apiserver_request_total before and after (every client's requests but watches,
// leases and non-resource paths; with kwok stopped and bare pods nothing else sends any then).
// `npm run bench event-cost`.
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { bundle } from '../../infra/bundle/build.js';
import { IMAGE_NODE_OPTIONS } from '../../infra/bundle/heap.js';
import { httpMessage, toApiServerSourceEvent } from '../../shared/cloudevents/index.js';
import type { KubeObject } from '../../shared/cloudevents/index.js';
import { functionIdentities } from '../harness/function-identity.js';
import type { Cluster } from '../harness/index.js';
import { kubeRequest } from '../harness/kube-http.js';
import { withCluster } from './cluster.js';
import { countBy } from './event-path.js';
import { createNamespace, createPods, SELECTED_EXIT_CODE, writePolicy } from './pods.js';
import { bundled, peakRssMiB } from './scale.js';
import { cpuSeconds, IDENTITY_NAMESPACES, settle, stopKwok } from './scale/snapshot.js';

const IN_FLIGHT = 4;
const NAMESPACE = 'event-cost';

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The API server's request counts by "VERB resource" (watches, leases and non-resource paths left out). */
async function apiRequests(cluster: Cluster): Promise<Map<string, number>> {
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

/** Each pod's Failed object to `url` as an update event, IN_FLIGHT at a time: the answers' outcomes. */
async function sendAll(url: string, pods: V1Pod[], server: string): Promise<string[]> {
  const outcomes: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < pods.length) {
        // A LIST's items carry no apiVersion and kind; an event's object does.
        const pod = { apiVersion: 'v1', kind: 'Pod', ...(JSON.parse(JSON.stringify(pods[next++])) as object) } as KubeObject;
        const m = httpMessage(toApiServerSourceEvent('update', pod, server));
        const res = await fetch(url, { method: 'POST', headers: m.headers, body: m.body, signal: AbortSignal.timeout(60_000) });
        const body = (await res.json()) as { outcome?: string };
        outcomes.push(res.status === 200 ? String(body.outcome) : `http ${res.status}`);
      }
    }),
  );
  return outcomes;
}

/** The pods, Failed; kwok stopped and the control plane idle; the identities minted. */
async function prepare(cluster: Cluster, pods: number) {
  const kc = cluster.kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  for (const name of IDENTITY_NAMESPACES) await core.createNamespace({ body: { metadata: { name } } });
  const ids = await functionIdentities(kc, cluster.kubeconfigPath, ...IDENTITY_NAMESPACES);
  await createNamespace(core, NAMESPACE);
  const failed = await createPods(core, NAMESPACE, 'cost', pods, SELECTED_EXIT_CODE);
  const kwokStopped = await stopKwok(cluster);
  const settleSeconds = await settle(cluster);
  return { core, ids, failed, kwokStopped, settleSeconds };
}

export async function runEventCostBench(pods = Number(process.env.EVENT_COST_PODS ?? 1000)): Promise<object> {
  await bundle();
  return withCluster('bench-event-cost', 1, async (cluster) => {
    const { core, ids, failed, kwokStopped, settleSeconds } = await prepare(cluster, pods);
    const fn = await bundled(
      {
        FUNCTION_TARGET: 'podTerminated',
        POLICY_FILE: writePolicy(),
        KUBECONFIG: ids.kubeconfig('podTerminated'),
        RECORD_EVENTS: 'false',
        NODE_OPTIONS: IMAGE_NODE_OPTIONS,
        // EVENT_COST_BUNDLE=<another checkout's dist/bundle/server.cjs>: that build instead (before/after).
      },
      process.env.EVENT_COST_BUNDLE,
    );
    let run: { outcomes: string[]; cpu: number; seconds: number; startup: number; peak: number; requests: Map<string, number> };
    try {
      const before = await apiRequests(cluster);
      const startup = cpuSeconds(fn.pid);
      const t0 = performance.now();
      const outcomes = await sendAll(fn.url, failed, cluster.server);
      const seconds = (performance.now() - t0) / 1000;
      const cpu = cpuSeconds(fn.pid) - startup;
      const after = await apiRequests(cluster);
      const requests = new Map([...after].map(([k, n]) => [k, n - (before.get(k) ?? 0)] as const).filter(([, n]) => n > 0));
      run = { outcomes, cpu, seconds, startup, peak: peakRssMiB(fn.pid), requests };
    } finally {
      await fn.stop();
    }
    const removed = run.outcomes.filter((o) => o === 'deleted').length;
    const requests = [...run.requests.values()].reduce((a, b) => a + b, 0);
    const per1000 = (x: number) => round2((x * 1000) / Math.max(1, removed));
    return {
      runs: `podTerminated, production bundle ${process.env.EVENT_COST_BUNDLE ?? '(this tree)'} on Node 22, image heap limit, its ServiceAccount, Events off`,
      pods,
      kwokStopped,
      settleSeconds,
      answers: countBy(run.outcomes, (o) => o),
      removed,
      podsLeft: (await core.listNamespacedPod({ namespace: NAMESPACE })).items.length,
      seconds: round2(run.seconds),
      removalsPerSecond: Math.round(removed / run.seconds),
      cpuSeconds: round2(run.cpu),
      cpuMsPerRemovedPod: round2((run.cpu * 1000) / Math.max(1, removed)),
      cpuSecondsPer1000Removed: per1000(run.cpu),
      startupCpuSeconds: round2(run.startup),
      apiRequests: requests,
      requestsPer1000Removed: per1000(requests),
      requestsByKind: Object.fromEntries(run.requests),
      peakRssMiB: run.peak,
    };
  });
}
