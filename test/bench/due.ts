// Eligibility -> gone (issue 25): Failed bare pods that RemoveFailedPods takes once they are
// AGE_S old, each delivered once as an update event to podTerminated (in process, through the
// resolver every transport shares), then left alone: nothing else happens until they go.
// Two runs: `timers` (the instance that saw the events acts by its own timers) and `ticks` (that
// instance is discarded once it scheduled them: another one's minute ticks act from the due
// list, which each tick reads every DUE_POLL_SECONDS while it holds). A watch of the bench's
// own times each pod's DELETED event; the latency is that moment minus the eligibleAt
// podTerminated answered. Requests are counted as podTerminated's clients
// send them (onRequest), from the first event to the last pod gone; the sweep's figure is what a
// 15-minute schedule gives a pod that becomes eligible at a uniformly random moment (no run).
import { CoreV1Api, Watch, type V1Pod } from '@kubernetes/client-node';
import { pino } from 'pino';
import { podTerminated } from '../../functions/pod-terminated.js';
import { decodeResourceEvent } from '../../shared/cloudevents/knative.js';
import type { KubeObject, TickEvent } from '../../shared/cloudevents/index.js';
import { kubeClients } from '../../shared/kube/index.js';
import { startRuntime } from '../../shared/runtime/runtime.js';
import { resolveContextOf, resolver } from '../../shared/serve/resolve.js';
import { waitFor, type Cluster } from '../harness/index.js';
import { withCluster } from './cluster.js';
import { createBarePods, createNamespace } from './pods.js';
import { spread } from './stats.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const AGE_S = 45;
const SHARDS = 4;

function policyFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-bench-due-')), 'policy.json');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'descheduler/v1alpha2',
      kind: 'DeschedulerPolicy',
      profiles: [
        {
          name: 'due',
          pluginConfig: [
            { name: 'DefaultEvictor', args: { podProtections: { defaultDisabled: ['FailedBarePods'] } } },
            { name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: AGE_S } },
          ],
          plugins: { deschedule: { enabled: ['RemoveFailedPods'] } },
        },
      ],
    }),
  );
  return file;
}

async function instance(cluster: Cluster, dueNamespace: string) {
  const kc = cluster.kubeConfig();
  const counted = { requests: 0, podLists: 0, dueReads: 0, dueWrites: 0 };
  const clients = kubeClients(kc, {
    onRequest: (method, url) => {
      counted.requests++;
      const path = new URL(url).pathname;
      if (method === 'GET' && /^\/api\/v1\/(namespaces\/[^/]+\/)?pods$/.test(path)) counted.podLists++;
      if (/\/configmaps\/kube-tidy-due-\d+$/.test(path) || (method === 'POST' && path.endsWith('/configmaps'))) {
        if (method === 'GET') counted.dueReads++;
        else counted.dueWrites++;
      }
    },
  });
  const rt = await startRuntime(
    {
      POLICY_FILE: policyFile(),
      KUBECONFIG: cluster.kubeconfigPath,
      DUE_NAMESPACE: dueNamespace,
      BRAKES_NAMESPACE: `${dueNamespace}-brakes`,
      REQUEST_DEADLINE_SECONDS: '70',
      DUE_SHARDS: String(SHARDS),
    },
    { log: pino({ level: process.env.DUE_BENCH_LOG ?? 'silent' }), kubeConfig: kc, clients },
  );
  const parts = await podTerminated.setup(rt);
  return { rt, parts, resolve: resolver(podTerminated, parts, resolveContextOf(rt)), counted };
}

async function run(cluster: Cluster, mode: 'timers' | 'ticks', count: number) {
  const kc = cluster.kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const namespace = `due-${mode}`;
  await createNamespace(core, namespace);
  const gone = new Map<string, number>();
  const watch = await new Watch(kc).watch(
    `/api/v1/namespaces/${namespace}/pods`,
    {},
    (type, pod: V1Pod) => {
      if (type === 'DELETED') gone.set(pod.metadata!.name!, Date.now());
    },
    () => {},
  );
  try {
    await createBarePods(core, namespace, mode, count, 1);
    const pods = await waitFor(
      `${count} pods Failed`,
      async () => {
        const items = (await core.listNamespacedPod({ namespace })).items;
        return items.length === count && items.every((p) => p.status?.phase === 'Failed') ? items : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 500 },
    );
    const first = await instance(cluster, `due-list-${mode}`);
    // ticks: another instance takes the minute ticks all along (as PingSource fires them, at a
    // random phase), and the one that saw the events is discarded once it scheduled them.
    const acting = mode === 'ticks' ? await instance(cluster, `due-list-${mode}`) : first;
    let ticks = 0;
    let ticker: NodeJS.Timeout | undefined;
    if (mode === 'ticks') {
      const tick: TickEvent = { type: 'tick', data: { function: 'podTerminated' }, origin: { bridge: 'knative-pingsource', transport: 'plain' } };
      const fire = () => {
        ticks++;
        void acting.resolve.event(tick);
      };
      ticker = setTimeout(
        () => {
          fire();
          ticker = setInterval(fire, 60_000);
        },
        Math.floor(Math.random() * 60_000),
      );
    }
    const eligible = new Map<string, number>();
    for (const p of pods) {
      const event = decodeResourceEvent('update', JSON.parse(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', ...p })) as KubeObject, 'object', {
        transport: 'plain',
      });
      const answer = await first.resolve.event(event);
      if (answer.body.scheduled) eligible.set(p.metadata!.name!, Date.parse(String(answer.body.eligibleAt)));
    }
    const listed = await dueListSize(core, `due-list-${mode}`);
    if (mode === 'ticks') first.parts.stop();
    await waitFor(`${count} pods gone`, async () => gone.size >= count || undefined, { timeoutMs: (AGE_S + 240) * 1000, intervalMs: 500 }).catch(
      (e: unknown) => {
        throw new Error(`${(e as Error).message}: ${gone.size} gone, ${eligible.size} scheduled, timers ${acting.parts.due.timers.size}`);
      },
    );
    clearTimeout(ticker);
    clearInterval(ticker);
    const latencies = [...eligible].map(([name, at]) => ((gone.get(name) ?? NaN) - at) / 1000);
    const all = [first.counted, ...(acting === first ? [] : [acting.counted])];
    const sum = (k: keyof (typeof all)[number]) => all.reduce((n, c) => n + c[k], 0);
    acting.parts.stop();
    return {
      pods: count,
      scheduled: eligible.size,
      latencySeconds: spread(latencies, 2),
      requestsPerPod: Math.round((sum('requests') / count) * 100) / 100,
      podLists: sum('podLists'),
      dueListRequestsPerPod: Math.round(((sum('dueReads') + sum('dueWrites')) / count) * 100) / 100,
      dueList: listed,
      ...(mode === 'ticks' ? { ticks } : {}),
    };
  } finally {
    watch.abort();
  }
}

/** Entries and bytes of the due list, as stored. */
async function dueListSize(core: CoreV1Api, namespace: string): Promise<{ entries: number; bytes: number; bytesPerEntry: number }> {
  let entries = 0;
  let bytes = 0;
  for (let s = 0; s < SHARDS; s++) {
    const cm = await core.readNamespacedConfigMap({ namespace, name: `kube-tidy-due-${s}` }).catch(() => undefined);
    for (const [k, v] of Object.entries(cm?.data ?? {})) {
      entries++;
      bytes += k.length + v.length;
    }
  }
  return { entries, bytes, bytesPerEntry: entries ? Math.round(bytes / entries) : 0 };
}

export async function runDueBench(count = 300): Promise<object> {
  return withCluster('due', 4, async (cluster) => {
    const timers = await run(cluster, 'timers', count);
    const ticks = await run(cluster, 'ticks', count);
    return {
      timers,
      ticks,
      // A pod eligible at a uniformly random moment waits for the next 15-minute sweep, plus its pass.
      sweepEvery15MinSeconds: { p50: 450, p99: 891, plus: 'the pass over every pod, one full LIST' },
    };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runDueBench(Number(process.argv[2] ?? '300'));
  console.log(JSON.stringify({ bench: 'due', ...result }, null, 2));
}
