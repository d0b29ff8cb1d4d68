import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, EventsV1Api, type V1Pod } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defrag } from '../../../functions/defrag.js';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { sweep } from '../../../functions/sweep.js';
import { normalize, used } from '../../../shared/brakes/core/ledger.js';
import { counterOf, type Meter } from '../../../shared/brakes/core/meters.js';
import { BRAKES_NAME, stateOf } from '../../../shared/brakes/io/store.js';
import { httpMessage, toApiServerSourceEvent } from '../../../shared/cloudevents/index.js';
import { startRuntime } from '../../../shared/runtime/runtime.js';
import { pingRequest } from '../../fixtures/events/requests.js';
import { policyDoc } from '../../fixtures/policy.js';
import { startCluster, waitFor, type Cluster } from '../../harness/index.js';
import { failedPolicy, windowEnd, windowWithRoom } from '../brakes/helpers.js';
import { runPod, send, serve } from '../functions/setup.js';
import { cordon, createNodes, deployment, MOST_ALLOCATED_PROFILES, runningPods, settled } from './scenario.js';

// Defrag's evictions are charged to the brakes' shared ledger through the admission port, as
// pod cleanup's removals are: the policy's maxNoOfPodsToEvictTotal holds across invocations
// and instances (a schedule's ticks used to each get the whole cap), and defrag and pod cleanup
// spend one budget, a sweep included. Four kwok nodes of 8 cpu with one single-replica Deployment each: a plan
// frees three of them, one eviction per step. Each case has a control plane of its own (defrag
// plans over the whole cluster) and functions over HTTP with their own runtimes (instances).

const NS = 'default';
const LEDGER = 'kube-tidy-ledger';
const NODES = ['n1', 'n2', 'n3', 'n4'];

/** One Deployment of one 1-cpu pod on each node, steered by cordoning the others. */
async function onePodPerNode(cluster: Cluster): Promise<void> {
  const kc = cluster.kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  await createNodes(core, NODES);
  for (const [i, n] of NODES.entries()) {
    await cordon(
      core,
      NODES.filter((x) => x !== n),
      true,
    );
    await cordon(core, [n], false);
    await apps.createNamespacedDeployment({ namespace: NS, body: deployment(`app-${i}`, 1, '1', false) });
    await settled(core, NS, i + 1);
  }
  await cordon(core, NODES, false);
}

function runtimeOn(cluster: Cluster, policy: unknown) {
  const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-defrag-brakes-')), 'policy.json');
  writeFileSync(file, JSON.stringify(policy));
  return startRuntime({ POLICY_FILE: file, KUBECONFIG: cluster.kubeconfigPath, BRAKES_NAMESPACE: LEDGER }, { log: pino({ level: 'silent' }) });
}

/** The Deployments' pods as they are, terminating ones included (an evicted pod's uid is gone from here once deleted). */
const podUids = async (core: CoreV1Api): Promise<string[]> =>
  (await core.listNamespacedPod({ namespace: NS })).items.filter((p) => p.metadata?.labels?.app?.startsWith('app-')).map((p) => p.metadata!.uid!);

/** Every replacement running and nothing terminating: what the next step verifies the last move against. */
const replaced = (core: CoreV1Api) =>
  waitFor(
    'every replacement running',
    async () =>
      (await runningPods(core, NS)).length === NODES.length &&
      !(await core.listNamespacedPod({ namespace: NS })).items.some((p) => p.metadata?.deletionTimestamp),
    { timeoutMs: 60_000 },
  );

/**
 * Units the ledger counts as spent for the cluster-wide budget, as any instance would see them
 * (holds included), once what was reserved and not used has gone back; and the ledger as read.
 */
async function spentInLedger(cluster: Cluster, meter: Meter, want: number): Promise<{ spent: number; ledger: string }> {
  const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
  const counter = counterOf(meter, { namespace: '' }, Date.now())!;
  const seen = { spent: -1, ledger: '' };
  await waitFor(
    `the ledger counting ${want} spent`,
    async () => {
      const state = stateOf(await core.readNamespacedConfigMap({ namespace: LEDGER, name: BRAKES_NAME }));
      if (!state) throw new Error('the ledger cannot be read as one');
      seen.spent = used(normalize(state, Date.now()), counter);
      seen.ledger = JSON.stringify(state);
      return seen.spent === want;
    },
    { timeoutMs: 20_000 },
  ).catch(() => undefined);
  return seen;
}

describe("defrag's evictions under the brakes", () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ name: 'defrag-brakes', kwokNodes: 0, schedulerProfiles: MOST_ALLOCATED_PROFILES });
    await onePodPerNode(cluster);
  });
  afterAll(async () => cluster?.stop());

  it('evicts at most maxNoOfPodsToEvictTotal in the window over three ticks on two instances; the third answers deferred (2xx), told once', async () => {
    const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
    const { top, windowMs } = windowWithRoom(5 * 60_000);
    const policy = policyDoc([{ name: 'PodLifeTime', args: { maxPodLifeTimeSeconds: 86400 } }], { top: { ...top, maxNoOfPodsToEvictTotal: 2 } });
    const [a, b] = [serve(defrag, await runtimeOn(cluster, policy)), serve(defrag, await runtimeOn(cluster, policy))];
    const before = await podUids(core);

    const answers = [];
    for (const agent of [a, b, a]) {
      const r = await send(agent, pingRequest('defrag'));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      answers.push(r.body as { outcome: string; deferred?: Record<string, unknown>; move?: { frees: string } });
      if (r.body.outcome === 'evicted') await replaced(core);
    }
    expect(answers.map((x) => x.outcome)).toEqual(['evicted', 'evicted', 'deferred']);
    expect(answers[2]!.deferred).toMatchObject({
      kind: 'budget',
      budget: 'maxNoOfPodsToEvictTotal',
      scope: 'cluster',
      limit: 2,
      freesAt: windowEnd(Date.now(), windowMs),
    });
    // The cluster's truth: two of the original pods evicted, not three.
    const now = new Set(await podUids(core));
    expect(before.filter((u) => !now.has(u))).toHaveLength(2);
    // A deferred move writes nothing: the node it would free is not cordoned for it.
    const frees = (answers[2] as { move?: { frees: string } }).move?.frees;
    if (frees && !answers.slice(0, 2).some((x) => x.move?.frees === frees)) expect((await core.readNode({ name: frees })).spec?.unschedulable).toBeFalsy();
    const ledger = await spentInLedger(cluster, { scope: 'cluster', max: 2, windowMs, name: 'maxNoOfPodsToEvictTotal' }, 2);
    expect(ledger.spent, ledger.ledger).toBe(2);
    const events = await cluster.kubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: LEDGER });
    expect(events.items.filter((e) => e.reason === 'BudgetExhausted').map((e) => e.note)).toEqual([expect.stringContaining('maxNoOfPodsToEvictTotal')]);
  });
});

describe('defrag and pod cleanup at once', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ name: 'defrag-brakes-shared', kwokNodes: 0, schedulerProfiles: MOST_ALLOCATED_PROFILES });
    await onePodPerNode(cluster);
  });
  afterAll(async () => cluster?.stop());

  it('share one budget with a sweep too: their removals together never exceed the cap, and the ledger counts every one', async () => {
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const { top, windowMs } = windowWithRoom(5 * 60_000);
    const policy = failedPolicy(['jobs'], { ...top, maxNoOfPodsToEvictTotal: 3 });
    await core.createNamespace({ body: { metadata: { name: 'jobs' } } });
    const failed: V1Pod[] = [];
    for (let i = 0; i < 6; i++) failed.push(await runPod(core, 'jobs', `oom-${i}`, { exitCode: 137 }));
    const server = kc.getCurrentCluster()!.server;
    const [d, p, s] = [
      serve(defrag, await runtimeOn(cluster, policy)),
      serve(podTerminated, await runtimeOn(cluster, policy)),
      serve(sweep, await runtimeOn(cluster, policy)),
    ];

    // One defrag tick, a sweep and four pod events, at once, on three instances.
    const [tick, swept, ...events] = await Promise.all([
      send(d, pingRequest('defrag')),
      send(s, pingRequest()),
      ...failed
        .slice(0, 4)
        .map((pod) =>
          send(p, httpMessage(toApiServerSourceEvent('update', JSON.parse(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', ...pod })), server), 'binary')),
        ),
    ]);
    for (const r of [tick!, swept!, ...events]) expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(['evicted', 'deferred']).toContain(tick!.body.outcome);
    for (const e of events) expect(['deleted', 'deferred', 'gone', 'stale']).toContain(e.body.outcome);
    const deferrals = [tick!, ...events].filter((r) => r.body.outcome === 'deferred').map((r) => r.body.deferred?.budget);
    expect(deferrals.every((b) => b === 'maxNoOfPodsToEvictTotal')).toBe(true);

    // What the cluster says was removed: the Failed pods gone (by an event or the sweep), and defrag's eviction.
    const left = (await core.listNamespacedPod({ namespace: 'jobs' })).items.filter((x) => !x.metadata?.deletionTimestamp);
    const removals = (tick!.body.outcome === 'evicted' ? 1 : 0) + (6 - left.length);
    expect(removals).toBeGreaterThan(0);
    expect(removals).toBeLessThanOrEqual(3);
    // The answers agree with the cluster: each Failed pod gone was deleted by exactly one of the event path and the sweep.
    const deleted = events.filter((e) => e.body.outcome === 'deleted').length + (swept!.body.summary.outcomes.deleted ?? 0);
    expect(deleted).toBe(6 - left.length);
    // Every removal, of any family and path, spent a unit of the one ledger.
    const ledger = await spentInLedger(cluster, { scope: 'cluster', max: 3, windowMs, name: 'maxNoOfPodsToEvictTotal' }, removals);
    expect(ledger.spent, ledger.ledger).toBe(removals);
  });
});
