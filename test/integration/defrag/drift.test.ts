import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, waitFor, type Cluster } from '../../harness/index.js';
import { defragStep } from '../../../shared/defrag/io/step.js';
import { CORDONED, MARK } from '../../../shared/defrag/core/marks.js';
import { createNodes, defragIo, STEP_DEFAULTS, deployment, runningPods } from './scenario.js';

// Drift: a replacement lands somewhere other than the plan said. The test plays the scheduler
// for Deployment "p" (its pods name a scheduler nobody runs, and the test binds them), so
// where each replacement lands is chosen here. Three kwok nodes of 8 cpu: p's pod on n1, a
// bare pod ("anchor", never moved) on n2, n3 empty. The plan frees n1 by moving p to n2; the
// test binds the replacement to n3 instead. The next step must report the drift, re-plan from
// the cluster as it is (n1 is now free; n3 is the node to empty) and finish safely.

const SCHEDULER = 'kube-tidy-test-binder';

describe('defragmentation when a replacement lands elsewhere than planned', () => {
  let cluster: Cluster;
  const ns = 'default';

  /** Binds p's one pending pod to `node`, as a scheduler would; answers its name. */
  async function bindPending(core: CoreV1Api, node: string): Promise<string> {
    const pod = await waitFor('a pending pod of p', async () => {
      const list = await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=p' });
      return list.items.find((x) => !x.spec?.nodeName && !x.metadata?.deletionTimestamp);
    });
    const name = pod.metadata!.name!;
    await core.createNamespacedPodBinding({ name, namespace: ns, body: { metadata: { name }, target: { apiVersion: 'v1', kind: 'Node', name: node } } });
    await waitFor(`${name} running on ${node}`, async () => (await runningPods(core, ns)).some((x) => x.metadata.name === name && x.spec?.nodeName === node));
    return name;
  }

  beforeAll(async () => {
    cluster = await startCluster({ name: 'defrag-drift', kwokNodes: 0 });
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await createNodes(core, ['n1', 'n2', 'n3']);
    const container = { name: 'main', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '1', memory: '1Gi' } } };
    await core.createNamespacedPod({ namespace: ns, body: { metadata: { name: 'anchor' }, spec: { nodeName: 'n2', containers: [container] } } });
    await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace: ns, body: deployment('p', 1, '1', false, SCHEDULER) });
    await bindPending(core, 'n1');
    await waitFor('anchor running', async () => (await runningPods(core, ns)).some((x) => x.metadata.name === 'anchor'));
  });
  afterAll(async () => cluster?.stop());

  it('reports the drift, re-plans from where the pod landed, and ends with every pod running and the empty nodes freed', async () => {
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);

    const first = await defragStep(defragIo(kc, { dryRun: false }), { ...STEP_DEFAULTS, now: Date.now() });
    expect(first.outcome).toBe('evicted');
    expect(first.move).toMatchObject({ frees: 'n1', to: 'n2' });
    await bindPending(core, 'n3'); // not where the plan said

    const second = await defragStep(defragIo(kc, { dryRun: false }), { ...STEP_DEFAULTS, now: Date.now() });
    expect(second.verified).toMatchObject({ expected: 'n2', landed: 'n3', asPlanned: false });
    expect(second.verified!.drift).toMatch(/landed on n3, not n2: re-planned/);
    // Re-planned from the truth: n1 is empty now; p must leave n3 for n2.
    expect(second.outcome).toBe('evicted');
    expect(second.move).toMatchObject({ frees: 'n3', to: 'n2' });
    await bindPending(core, 'n2');

    const third = await defragStep(defragIo(kc, { dryRun: false }), { ...STEP_DEFAULTS, now: Date.now() });
    expect(third.verified).toMatchObject({ expected: 'n2', landed: 'n2', asPlanned: true });
    expect(third.outcome).toBe('converged');

    const pods = await runningPods(core, ns);
    expect(pods.map((x) => `${x.metadata.labels?.app ?? x.metadata.name}@${x.spec!.nodeName}`).sort()).toEqual(['anchor@n2', 'p@n2']);
    const nodes = Object.fromEntries((await core.listNode()).items.map((n) => [n.metadata!.name!, n]));
    for (const freed of ['n1', 'n3']) {
      expect(nodes[freed]!.metadata?.annotations?.[MARK]).toBe('freed');
      expect(nodes[freed]!.metadata?.annotations?.[CORDONED]).toBe('true');
      expect(nodes[freed]!.spec?.unschedulable).toBe(true);
    }
    expect(nodes.n2!.spec?.unschedulable).toBeFalsy();
    expect(nodes.n2!.metadata?.annotations?.[MARK]).toBeUndefined();
  });
});
