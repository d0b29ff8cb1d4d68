// `npm run demo`: the real event path end to end on a local control plane. A cluster starts,
// the podTerminated and sweep functions start as their own processes, the bridge turns watch
// events into Knative ApiServerSource CloudEvents, a workload runs, and every pod's fate is
// shown as it happens, with a summary table at the end. Everything it starts, it stops. What
// kube-tidy did is heard where a user would hear it: the functions' answers in their logs, and
// their decision CloudEvents at a sink the demo runs (decisions.ts), for what answers no request.
import { fileURLToPath } from 'node:url';
import { AppsV1Api, BatchV1Api, CoreV1Api, PolicyV1Api, Watch, type V1Pod } from '@kubernetes/client-node';
import { startCluster } from '../../../test/harness/cluster.js';
import { waitFor } from '../../../test/harness/wait.js';
import { startBridge, silentLogger } from '../../../shared/hosts/bridge/index.js';
import { startFunction, type FunctionProcess } from './functions.js';
import { EXPECTED, NS, crashLoop, createBeforeBridge, createNamespaces, createWorkload, type Apis } from './workload.js';
import { demoMetrics } from './metrics-summary.js';
import { event, median, say, seconds, table } from './report.js';
import { clock, eligibleToGone, endedToGone, summaryLine, tell, type AnswerSeen, type Observation, type PodStory } from './story.js';
import { decisionSink } from './decisions.js';

const POLICY = fileURLToPath(new URL('./policy.yaml', import.meta.url));
const WATCHED = new Set<string>([...Object.values(NS), 'kube-system']);
const TIMEOUT_MS = 150_000;

// Everything seen, kept in arrival order; the story is told from all of it (story.ts).
const observations: Observation[] = [];
const lastSaid = new Map<string, string>();
const goneUids = new Set<string>();
const goneNames = new Set<string>();
/** Once the table is printed, late lines (shutdown) would only blur it. */
let told = false;

function onFunctionLog(entry: Record<string, unknown>): void {
  if (entry.msg !== 'handled' || typeof entry.pod !== 'string') return;
  const [ns, name] = entry.pod.split('/') as [string, string];
  if (!WATCHED.has(ns)) return;
  const result = entry.result as { uid?: string; strategy?: string; dryRun?: boolean } | undefined;
  const outcome = String(entry.outcome);
  const why = String(entry.why ?? '');
  const scheduled = typeof entry.scheduled === 'string' ? entry.scheduled : undefined;
  observations.push({
    kind: 'answer',
    at: Date.now(),
    by: String(entry.target ?? 'podTerminated'),
    namespace: ns,
    name,
    outcome,
    why,
    ...(result?.uid ? { uid: result.uid } : {}),
    ...(result?.strategy ? { strategy: result.strategy } : {}),
    ...(result?.dryRun === undefined ? {} : { dryRun: result.dryRun }),
    ...(scheduled ? { scheduled } : {}),
  });
  // Live lines: each new thing a function says, including a removal answered after the watch
  // saw the pod gone (that answer is why it went); not the echoes about a pod already gone.
  if (told || (goneNames.has(entry.pod) && outcome !== 'deleted' && outcome !== 'evicted')) return;
  if (lastSaid.get(entry.pod) === `${outcome} ${why}`) return;
  lastSaid.set(entry.pod, `${outcome} ${why}`);
  // Only time stands in the way: when it goes is the news (the why, in the table, repeats the time).
  if (scheduled) event('scheduled', entry.pod, `for ${clock(scheduled)}, its eligibility time`);
  else event(outcome, entry.pod, why);
}

/** A removal at a pod's eligibility, heard from its decision CloudEvent (no request answered it). */
function onDueDecision(a: AnswerSeen): void {
  if (!WATCHED.has(a.namespace)) return;
  observations.push(a);
  if (told || !a.due) return;
  const by = a.due.by === 'tick' ? 'a due-list tick' : 'the timer';
  event(a.outcome, `${a.namespace}/${a.name}`, `by ${by} at eligibility, ${clock(a.due.at)}: ${a.why}`);
}

function watchPods(cluster: { kubeConfig(): import('@kubernetes/client-node').KubeConfig }): Promise<AbortController> {
  const terminal = new Set<string>();
  return new Watch(cluster.kubeConfig()).watch(
    '/api/v1/pods',
    {},
    (type: string, pod: V1Pod) => {
      const ns = pod.metadata?.namespace ?? '';
      if (!WATCHED.has(ns) || (ns === 'kube-system' && !pod.metadata?.name?.startsWith('node-agent'))) return;
      const uid = pod.metadata!.uid!;
      const name = pod.metadata!.name!;
      const phase = pod.status?.phase;
      const code = pod.status?.containerStatuses?.[0]?.state?.terminated?.exitCode;
      observations.push({
        kind: 'watch',
        at: Date.now(),
        namespace: ns,
        name,
        uid,
        ...(phase ? { phase } : {}),
        ...(code === undefined ? {} : { exitCode: code }),
        ...(type === 'DELETED' ? { deleted: true } : {}),
      });
      if ((phase === 'Succeeded' || phase === 'Failed') && !terminal.has(uid)) {
        terminal.add(uid);
        say(`${phase.toLowerCase().padEnd(13)} ${ns}/${name}${code !== undefined ? `  (exit ${code})` : ''}`);
      }
      if (type === 'DELETED' && !goneUids.has(uid)) {
        goneUids.add(uid);
        goneNames.add(`${ns}/${name}`);
        say(`gone          ${ns}/${name}`);
      }
    },
    () => {},
  );
}

function done(stories: PodStory[]): boolean {
  return EXPECTED.every((e) => {
    const pods = stories.filter((r) => r.namespace === e.namespace && r.name.startsWith(e.prefix));
    if (pods.length === 0) return false;
    // A deployment's other replica is healthy and left alone: one blocked pod and none gone.
    if (e.expect === 'blocked') return pods.some((r) => r.result === 'blocked') && pods.every((r) => r.goneAt === undefined);
    return pods.every((r) => (e.expect === 'kept' ? r.result === 'kept' || r.result === 'nothing-to-do' : r.goneAt !== undefined));
  });
}

/** Every pod the watch saw go has the answer that removed it (it may be logged a moment later). */
const settled = (stories: PodStory[]) => stories.every((s) => s.goneAt === undefined || s.result !== 'gone');

async function main(): Promise<void> {
  say('starting a local control plane (etcd, kube-apiserver, controller-manager, scheduler, kwok)');
  const cluster = await startCluster({ name: 'demo', kwokNodes: 2 });
  const stops: (() => Promise<unknown>)[] = [() => cluster.stop()];
  try {
    say(`control plane ready in ${seconds(cluster.readyMs)}`);
    const kc = cluster.kubeConfig();
    const api: Apis = {
      core: kc.makeApiClient(CoreV1Api),
      batch: kc.makeApiClient(BatchV1Api),
      apps: kc.makeApiClient(AppsV1Api),
      policy: kc.makeApiClient(PolicyV1Api),
    };
    await createNamespaces(api);
    const watch = await watchPods(cluster);
    stops.unshift(async () => watch.abort());
    await createBeforeBridge(api);

    const metrics = await demoMetrics();
    stops.push(() => metrics.close());
    const decisions = await decisionSink(onDueDecision);
    stops.push(async () => decisions.close());
    const env = {
      POLICY_FILE: POLICY,
      KUBECONFIG: cluster.kubeconfigPath,
      PROTECTED_NAMESPACES: `kube-system,${NS.protected}`,
      ...metrics.env,
      ...decisions.env,
    };
    const fns: FunctionProcess[] = [];
    for (const target of ['podTerminated', 'sweep']) fns.push(await startFunction(target, env, onFunctionLog));
    stops.unshift(...fns.map((f) => () => f.stop()));
    say(`functions podTerminated and sweep are serving (the production bundle, policy ${POLICY.split('/').slice(-3).join('/')})`);

    await beforeTheBridge(api, observations);
    const bridge = await startBridge({ kubeConfig: kc, sink: fns[0]!.url, kinds: ['Pod'], log: silentLogger, statsIntervalMs: 0 });
    stops.unshift(() => bridge.stop());
    say('bridge watching pods, posting Knative ApiServerSource CloudEvents to podTerminated');

    await createWorkload(api);
    say(
      'workload created: jobs failing with exit 3, 137 (OOMKilled), 143 and 1; jobs that succeed; a web deployment under a PDB; failing pods in protected namespaces',
    );
    const web = await waitFor('web pods running', async () => {
      const pods = (await api.core.listNamespacedPod({ namespace: NS.web })).items.filter((p) => p.status?.phase === 'Running');
      return pods.length === 2 ? pods : undefined;
    });
    await crashLoop(api, web[0]!.metadata!.name!);
    say(`${NS.web}/${web[0]!.metadata!.name} is now crash-looping (12 restarts)`);

    // The schedule: Knative's PingSource would post this tick; here, every 5 s.
    const started = Date.now();
    while (!done(tell(observations)) && Date.now() - started < TIMEOUT_MS) {
      await new Promise((r) => setTimeout(r, 5000));
      const res = await fetch(fns[1]!.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const body = (await res.json()) as {
        results?: { namespace: string; name: string; uid: string; strategy: string; outcome: string; reason: string; message?: string; dryRun: boolean }[];
      };
      for (const r of body.results ?? []) {
        if (!WATCHED.has(r.namespace)) continue;
        const why = r.message ? `${r.reason} (${r.message})` : r.reason;
        observations.push({
          kind: 'answer',
          at: Date.now(),
          by: 'sweep',
          namespace: r.namespace,
          name: r.name,
          uid: r.uid,
          strategy: r.strategy,
          outcome: r.outcome,
          why,
          dryRun: r.dryRun,
        });
        if (r.outcome === 'deleted' || r.outcome === 'evicted') event('swept', `${r.namespace}/${r.name}`, r.reason);
      }
    }
    // The last removals' answers may be logged just after the watch saw the pods go.
    await waitFor('every removal explained', async () => settled(tell(observations)), { timeoutMs: 5000 }).catch(() => undefined);
    const stories = tell(observations);
    const ok = done(stories);
    told = true;
    process.stdout.write(`\n${table(stories)}\n\n`);
    // The event path's own removals, then those at eligibility (their pods waited on purpose).
    const eventPath = stories.filter((r) => r.by === 'podTerminated' && r.result === 'deleted' && !r.due).flatMap((r) => endedToGone(r) ?? []);
    say(`terminal -> gone through bridge + podTerminated: median ${seconds(median(eventPath))} over ${eventPath.length} pods`);
    const onTime = stories.flatMap((r) => eligibleToGone(r) ?? []);
    say(`eligible -> gone by podTerminated's timer (no sweep): median ${seconds(median(onTime))} over ${onTime.length} pods`);
    for (const e of EXPECTED) say(summaryLine(e, stories));
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

/**
 * The pre-existing Job's pod has ended and the Job is counted Complete: until then the Job
 * controller still updates its pod (it takes its tracking finalizer off), an event a bridge
 * started meanwhile would pass on, and only the sweep is to see that pod.
 */
async function beforeTheBridge(api: Apis, observations: Observation[]): Promise<void> {
  await waitFor('the pre-existing job to finish', async () => tell(observations).some((r) => r.name.startsWith('old-report') && r.terminalAt));
  await waitFor(
    'the pre-existing job to be Complete',
    async () =>
      (await api.batch.readNamespacedJob({ namespace: NS.batch, name: 'old-report' })).status?.conditions?.some(
        (c) => c.type === 'Complete' && c.status === 'True',
      ) || undefined,
  );
}
