import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, EventsV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defrag } from '../../../functions/defrag.js';
import { startRuntime } from '../../../shared/runtime/runtime.js';
import { policyDoc } from '../../fixtures/policy.js';
import { pingRequest } from '../../fixtures/events/requests.js';
import { startCluster, waitFor, type Cluster } from '../../harness/index.js';
import { send, serve } from '../functions/setup.js';
import { cordon, onePerNode, runningPods } from './scenario.js';

// A dry run writes nothing: neither DRY_RUN=true nor a plan-only call (a plain POST). The
// interesting moment is the one after a real step evicted a pod: the next step verifies that
// move and, for real, clears the in-flight record from the node (and would give back a
// swap's held spot). Planned only, that clean-up must not be written either. Two kwok nodes,
// one small Deployment on each; the plan frees one node by moving one pod.

const IN_FLIGHT = 'kube-tidy.dev/defrag-in-flight';

describe('defragmentation in a dry run', () => {
  let cluster: Cluster;
  const ns = 'default';
  const policy = join(mkdtempSync(join(tmpdir(), 'kube-tidy-defrag-')), 'policy.json');

  const runtime = (env: Record<string, string>) =>
    startRuntime({ POLICY_FILE: policy, KUBECONFIG: cluster.kubeconfigPath, ...env }, { log: pino({ level: 'silent' }) });

  /** What a step could change: every node's and pod's resourceVersion, and kube-tidy's Events. */
  async function stored(): Promise<Record<string, string>> {
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const out: Record<string, string> = {};
    for (const n of (await core.listNode()).items) out[`node/${n.metadata!.name}`] = n.metadata!.resourceVersion!;
    for (const p of (await core.listPodForAllNamespaces()).items) out[`pod/${p.metadata!.namespace}/${p.metadata!.name}`] = p.metadata!.resourceVersion!;
    for (const c of (await core.listConfigMapForAllNamespaces()).items)
      out[`configmap/${c.metadata!.namespace}/${c.metadata!.name}`] = c.metadata!.resourceVersion!;
    const events = await kc.makeApiClient(EventsV1Api).listEventForAllNamespaces();
    for (const e of events.items.filter((x) => x.reportingController === 'kube-tidy.dev/kube-tidy'))
      out[`event/${e.metadata!.name}`] = e.metadata!.resourceVersion!;
    return out;
  }

  beforeAll(async () => {
    writeFileSync(policy, JSON.stringify(policyDoc([{ name: 'PodLifeTime', args: { maxPodLifeTimeSeconds: 86400 } }])));
    cluster = await startCluster({ name: 'defrag-dry', kwokNodes: 0 });
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const apps = kc.makeApiClient(AppsV1Api);
    await onePerNode(core, apps, ns);
    await cordon(core, ['n1'], false);
  });
  afterAll(async () => cluster?.stop());

  it('neither DRY_RUN=true nor a plain POST writes anything, even where a real step would clear a verified move', async () => {
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const before = await stored();
    const dry = serve(defrag, await runtime({ DRY_RUN: 'true' }));
    const planned = await send(dry, pingRequest());
    expect(planned.status, JSON.stringify(planned.body)).toBe(200);
    expect(planned.body).toMatchObject({ outcome: 'planned', dryRun: true });
    expect(await stored()).toEqual(before);

    // A real step: one eviction, the freed node cordoned and its in-flight record written.
    const real = serve(defrag, await runtime({}));
    const first = await send(real, pingRequest());
    expect(first.body).toMatchObject({ outcome: 'evicted', dryRun: false });
    const frees = first.body.move.frees as string;
    await waitFor(
      'the replacement running',
      async () =>
        (await runningPods(core, ns)).length === 2 && !(await core.listNamespacedPod({ namespace: ns })).items.some((p) => p.metadata?.deletionTimestamp),
    );
    expect((await core.readNode({ name: frees })).metadata?.annotations?.[IN_FLIGHT]).toBeDefined();

    const settledState = await stored();
    // A plain POST (a plan) to the real deployment, and a tick with DRY_RUN=true: each
    // verifies the move (as a real step would) and writes nothing.
    const calls = [() => real.post('/').set('content-type', 'application/json').send({}), () => send(dry, pingRequest())];
    for (const call of calls) {
      const r = await call();
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(await stored()).toEqual(settledState);
      expect(r.body).toMatchObject({ dryRun: true, verified: { asPlanned: true } });
    }
    expect((await core.readNode({ name: frees })).metadata?.annotations?.[IN_FLIGHT]).toBeDefined();
  });
});
