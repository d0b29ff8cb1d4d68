// `npm run demo`: the real event path end to end on a local control plane. A cluster starts,
// the podTerminated and sweep functions start as their own processes, the bridge turns watch
// events into Knative ApiServerSource CloudEvents, a workload runs, and every pod's fate is
// shown as it happens, with a summary table at the end. Everything it starts, it stops.
import { fileURLToPath } from 'node:url';
import { AppsV1Api, BatchV1Api, CoreV1Api, PolicyV1Api, Watch, type V1Pod } from '@kubernetes/client-node';
import { startCluster } from '../../../test/harness/cluster.js';
import { waitFor } from '../../../test/harness/wait.js';
import { startBridge, silentLogger } from '../../../shared/cli/bridge/index.js';
import { startFunction, type FunctionProcess } from './functions.js';
import { EXPECTED, NS, crashLoop, createBeforeBridge, createNamespaces, createWorkload, type Apis } from './workload.js';
import { demoMetrics } from './metrics-summary.js';
import { event, median, say, seconds, table, type PodRecord } from './report.js';

const POLICY = fileURLToPath(new URL('./policy.yaml', import.meta.url));
const WATCHED = new Set<string>([...Object.values(NS), 'kube-system']);
const TIMEOUT_MS = 150_000;

const records = new Map<string, PodRecord>();
const key = (ns: string, name: string) => `${ns}/${name}`;
const record = (ns: string, name: string) => {
  const k = key(ns, name);
  let r = records.get(k);
  if (!r) records.set(k, (r = { namespace: ns, name }));
  return r;
};

function onFunctionLog(entry: Record<string, unknown>): void {
  if (entry.msg !== 'handled' || typeof entry.pod !== 'string') return;
  const [ns, name] = entry.pod.split('/') as [string, string];
  if (!WATCHED.has(ns)) return;
  const r = record(ns, name);
  if (r.goneAt) return; // late events about a pod already removed say nothing new
  const outcome = String(entry.outcome);
  if (r.outcome === outcome && r.why === entry.why) return;
  if (r.outcome === 'deleted' || r.outcome === 'swept') return;
  r.outcome = outcome;
  r.why = String(entry.why ?? '');
  r.by = 'podTerminated';
  event(outcome, entry.pod, r.why);
}

function watchPods(cluster: { kubeConfig(): import('@kubernetes/client-node').KubeConfig }): Promise<AbortController> {
  return new Watch(cluster.kubeConfig()).watch(
    '/api/v1/pods',
    {},
    (type: string, pod: V1Pod) => {
      const ns = pod.metadata?.namespace ?? '';
      if (!WATCHED.has(ns) || (ns === 'kube-system' && !pod.metadata?.name?.startsWith('node-agent'))) return;
      const r = record(ns, pod.metadata!.name!);
      const phase = pod.status?.phase;
      if ((phase === 'Succeeded' || phase === 'Failed') && !r.terminalAt) {
        r.terminalAt = Date.now();
        const code = pod.status?.containerStatuses?.[0]?.state?.terminated?.exitCode;
        say(`${phase.toLowerCase().padEnd(13)} ${r.namespace}/${r.name}${code !== undefined ? `  (exit ${code})` : ''}`);
      }
      r.phase = phase ?? r.phase;
      if (type === 'DELETED' && !r.goneAt) {
        r.goneAt = Date.now();
        say(`gone          ${r.namespace}/${r.name}  (${r.terminalAt ? `${seconds(r.goneAt - r.terminalAt)} after it ended` : 'evicted'})`);
      }
    },
    () => {},
  );
}

function done(): boolean {
  return EXPECTED.every((e) => {
    const pods = [...records.values()].filter((r) => r.namespace === e.namespace && r.name.startsWith(e.prefix));
    if (pods.length === 0) return false;
    // A deployment's other replica is healthy and left alone: one blocked pod and none gone.
    if (e.expect === 'blocked') return pods.some((r) => r.outcome === 'blocked') && pods.every((r) => !r.goneAt);
    return pods.every((r) => (e.expect === 'kept' ? r.outcome === 'kept' || r.outcome === 'nothing-to-do' : r.goneAt !== undefined));
  });
}

async function main(): Promise<void> {
  say('starting a local control plane (etcd, kube-apiserver, controller-manager, scheduler, kwok)');
  const cluster = await startCluster({ name: 'demo', kwokNodes: 2 });
  const stops: (() => Promise<unknown>)[] = [() => cluster.stop()];
  try {
    say(`control plane ready in ${seconds(cluster.readyMs)}`);
    const kc = cluster.kubeConfig();
    const api: Apis = { core: kc.makeApiClient(CoreV1Api), batch: kc.makeApiClient(BatchV1Api), apps: kc.makeApiClient(AppsV1Api), policy: kc.makeApiClient(PolicyV1Api) };
    await createNamespaces(api);
    const watch = await watchPods(cluster);
    stops.unshift(async () => watch.abort());
    await createBeforeBridge(api);

    const metrics = await demoMetrics();
    stops.push(() => metrics.close());
    const env = { POLICY_FILE: POLICY, KUBECONFIG: cluster.kubeconfigPath, PROTECTED_NAMESPACES: `kube-system,${NS.protected}`, ...metrics.env };
    const fns: FunctionProcess[] = [];
    for (const target of ['podTerminated', 'sweep']) fns.push(await startFunction(target, env, onFunctionLog));
    stops.unshift(...fns.map((f) => () => f.stop()));
    say(`functions podTerminated and sweep are serving (functions-framework, policy ${POLICY.split('/').slice(-3).join('/')})`);

    await waitFor('the pre-existing job to finish', async () => [...records.values()].some((r) => r.name.startsWith('old-report') && r.terminalAt));
    const bridge = await startBridge({ kubeConfig: kc, sink: fns[0]!.url, kinds: ['Pod'], log: silentLogger, statsIntervalMs: 0 });
    stops.unshift(() => bridge.stop());
    say('bridge watching pods, posting Knative ApiServerSource CloudEvents to podTerminated');

    await createWorkload(api);
    say('workload created: jobs failing with exit 3, 137 (OOMKilled), 143 and 1; jobs that succeed; a web deployment under a PDB; failing pods in protected namespaces');
    const web = await waitFor('web pods running', async () => {
      const pods = (await api.core.listNamespacedPod({ namespace: NS.web })).items.filter((p) => p.status?.phase === 'Running');
      return pods.length === 2 ? pods : undefined;
    });
    await crashLoop(api, web[0]!.metadata!.name!);
    say(`${NS.web}/${web[0]!.metadata!.name} is now crash-looping (12 restarts)`);

    // The schedule: Knative's PingSource would post this tick; here, every 5 s.
    const started = Date.now();
    while (!done() && Date.now() - started < TIMEOUT_MS) {
      await new Promise((r) => setTimeout(r, 5000));
      const res = await fetch(fns[1]!.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const body = (await res.json()) as { results?: { namespace: string; name: string; outcome: string; reason: string }[] };
      for (const r of body.results ?? []) {
        if (!WATCHED.has(r.namespace) || r.outcome !== 'deleted') continue;
        const rec = record(r.namespace, r.name);
        rec.outcome = 'swept';
        rec.why = r.reason;
        rec.by = 'sweep';
        event('swept', `${r.namespace}/${r.name}`, r.reason);
      }
    }
    const ok = done();
    const list = [...records.values()].sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
    process.stdout.write(`\n${table(list)}\n\n`);
    const eventPath = list.filter((r) => r.by === 'podTerminated' && r.terminalAt && r.goneAt).map((r) => r.goneAt! - r.terminalAt!);
    say(`terminal -> gone through bridge + podTerminated: median ${seconds(median(eventPath))} over ${eventPath.length} pods`);
    for (const e of EXPECTED) say(`${e.expect.padEnd(8)} ${e.namespace}/${e.prefix}*: ${e.story}`);
    process.stdout.write(`\n${metrics.summary()}\n`);
    if (!ok) {
      say('not every expected outcome was seen in time (see the table)');
      process.exitCode = 1;
    }
  } finally {
    say('stopping everything the demo started');
    for (const stop of stops) await stop().catch(() => {});
  }
}

await main();
