import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, waitFor, type Cluster } from '../../harness/index.js';
import { defragStep } from '../../../shared/defrag/io/step.js';
import { CORDONED, MARK } from '../../../shared/defrag/core/marks.js';
import { cordon, defragIo, STEP_DEFAULTS, deployment, onePerNode, runningPods, settled } from './scenario.js';

// Defragmentation cordons the node it frees, and gives it back when that node can no longer
// be freed. It must give back only what it took: a node an operator had cordoned (for
// maintenance, say) stays cordoned whatever the steps did. Two kwok nodes of 8 cpu, one small
// Deployment on each; the operator cordons n1, so the only plan is to free n1 by moving its
// pod to n2. After the first eviction the operator pins a debug pod to n1 (no controller: it
// never moves), so n1 can no longer be freed and the next step gives it up. Then the same
// story on a node kube-tidy cordoned itself: that cordon is given back.

describe('defragmentation and cordons it did not make', () => {
  let cluster: Cluster;
  const ns = 'default';
  beforeAll(async () => {
    cluster = await startCluster({ name: 'defrag-cordons', kwokNodes: 0 });
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const apps = kc.makeApiClient(AppsV1Api);
    await onePerNode(core, apps, ns);
    // n1 stays cordoned: the operator's.
  });
  afterAll(async () => cluster?.stop());

  it("keeps an operator's cordon when it gives up freeing that node", async () => {
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const first = await defragStep(defragIo(kc, { dryRun: false }), { ...STEP_DEFAULTS, now: Date.now() });
    expect(first.outcome).toBe('evicted');
    expect(first.move).toMatchObject({ frees: 'n1', to: 'n2' });

    // The operator's debug pod, pinned to n1 past the cordon.
    await core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'debug' }, spec: { nodeName: 'n1', containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] } },
    });
    await waitFor("the debug pod and a's replacement running", async () => {
      const pods = await runningPods(core, ns);
      return pods.some((p) => p.metadata.name === 'debug') && pods.filter((p) => p.metadata.labels?.app === 'a').length === 1;
    });

    const second = await defragStep(defragIo(kc, { dryRun: false }), { ...STEP_DEFAULTS, now: Date.now() });
    expect(second.verified).toMatchObject({ expected: 'n2', landed: 'n2', asPlanned: true });
    expect(second.outcome).toBe('converged');
    const n1 = await core.readNode({ name: 'n1' });
    // Given up (no mark), but still cordoned: kube-tidy did not cordon it.
    expect(n1.metadata?.annotations?.[MARK]).toBeUndefined();
    expect(n1.spec?.unschedulable).toBe(true);
    // The debug pod was never a candidate.
    expect((await runningPods(core, ns)).map((p) => p.metadata.name)).toContain('debug');
  });

  it('gives back a cordon it made itself when it gives up freeing that node', async () => {
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const apps = kc.makeApiClient(AppsV1Api);
    // Maintenance over: the operator uncordons n1 and removes the debug pod; "c" lands on n1.
    await core.deleteNamespacedPod({ name: 'debug', namespace: ns, gracePeriodSeconds: 0 });
    await cordon(core, ['n1'], false);
    await cordon(core, ['n2'], true);
    await apps.createNamespacedDeployment({ namespace: ns, body: deployment('c', 1, '1', false) });
    await settled(core, ns, 3);
    await cordon(core, ['n2'], false);

    const first = await defragStep(defragIo(kc, { dryRun: false }), { ...STEP_DEFAULTS, now: Date.now() });
    expect(first.move).toMatchObject({ frees: 'n1', to: 'n2' });
    const marked = await core.readNode({ name: 'n1' });
    expect(marked.spec?.unschedulable).toBe(true);
    expect(marked.metadata?.annotations?.[CORDONED]).toBe('true');

    await core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'debug-2' }, spec: { nodeName: 'n1', containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] } },
    });
    await waitFor("debug-2 and c's replacement running", async () => {
      const pods = await runningPods(core, ns);
      return pods.some((p) => p.metadata.name === 'debug-2') && pods.filter((p) => p.metadata.labels?.app === 'c').length === 1;
    });
    const second = await defragStep(defragIo(kc, { dryRun: false }), { ...STEP_DEFAULTS, now: Date.now() });
    expect(second.outcome).toBe('converged');
    const n1 = await core.readNode({ name: 'n1' });
    expect(n1.spec?.unschedulable).toBeFalsy();
    expect(n1.metadata?.annotations?.[MARK]).toBeUndefined();
    expect(n1.metadata?.annotations?.[CORDONED]).toBeUndefined();
  });
});
