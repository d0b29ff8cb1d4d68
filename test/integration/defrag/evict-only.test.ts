import { AppsV1Api, CoreV1Api, EventsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../harness/index.js';
import { defragStep } from '../../../shared/defrag/io/step.js';
import { CORDONED, inFlightOf, MARK } from '../../../shared/defrag/core/marks.js';
import { ANNOTATIONS } from '../../../shared/evacuation/core/annotations.js';
import { createNodes, defragIo, deployment, runningPods, settled, STEP_DEFAULTS } from './scenario.js';

// The descheduler's EvictionsInBackground contract on a real API server: a running pod its
// owner marked request-evict-only is never evicted by a defragmentation move; the move asks
// for its evacuation (the evacuation family's request annotation) and follows it as a move in
// flight. Two kwok nodes of 8 cpu: "vm" (one replica, marked) on n1, a bare pod ("anchor",
// never moved: no controller) on n2. The plan frees n1 by moving vm to n2.

describe('defragmentation and request-evict-only', () => {
  let cluster: Cluster;
  const ns = 'default';

  beforeAll(async () => {
    cluster = await startCluster({ name: 'defrag-evict-only', kwokNodes: 0 });
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await createNodes(core, ['n1', 'n2']);
    const container = { name: 'main', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '1', memory: '1Gi' } } };
    await core.createNamespacedPod({ namespace: ns, body: { metadata: { name: 'anchor' }, spec: { nodeName: 'n2', containers: [container] } } });
    const base = deployment('vm', 1, '1', false);
    const template = base.spec.template;
    // Bound to n1 by the template itself: no scheduler needed to place it.
    const marked = {
      ...base,
      spec: {
        ...base.spec,
        template: { metadata: { ...template.metadata, annotations: { [ANNOTATIONS.requestEvictOnly]: '' } }, spec: { ...template.spec, nodeName: 'n1' } },
      },
    };
    await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace: ns, body: marked });
    await settled(core, ns, 2);
  });
  afterAll(async () => cluster?.stop());

  it('the move asks for its evacuation and evicts nothing; the pod is not chosen again while its evacuation is under way', async () => {
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const [vm] = (await runningPods(core, ns)).filter((p) => p.metadata.labels?.app === 'vm');

    const first = await defragStep(defragIo(kc, { dryRun: false }), { ...STEP_DEFAULTS, now: Date.now() });
    expect(first).toMatchObject({ outcome: 'evacuation-requested', move: { pod: { uid: vm!.metadata.uid }, from: 'n1', to: 'n2', frees: 'n1' } });
    expect(first.message).toContain('not evicted; evacuation requested');
    // As the client middleware counted them: LIST nodes, budgets and pods; the target's mark;
    // the request annotation and its Event; the in-flight record.
    expect(first.requests).toBe(7);

    // Still there, Running, not terminating, with the request the evacuation family follows.
    const after = await core.readNamespacedPod({ namespace: ns, name: vm!.metadata.name! });
    expect(after.metadata?.uid).toBe(vm!.metadata.uid);
    expect(after.metadata?.deletionTimestamp).toBeUndefined();
    expect(after.status?.phase).toBe('Running');
    expect(after.metadata?.annotations?.[ANNOTATIONS.request]).toBe('defrag');
    const n1 = await core.readNode({ name: 'n1' });
    expect(n1.metadata?.annotations).toMatchObject({ [MARK]: 'target', [CORDONED]: 'true' });
    expect(inFlightOf(n1 as Parameters<typeof inFlightOf>[0])).toMatchObject({ move: { pod: { uid: vm!.metadata.uid } }, evacuation: true });
    const events = await kc.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns, fieldSelector: `regarding.uid=${vm!.metadata.uid}` });
    expect(events.items.map((e) => e.reason)).toContain('EvacuationRequested');

    // The next step waits for the evacuation: nothing is written.
    const second = await defragStep(defragIo(kc, { dryRun: false }), { ...STEP_DEFAULTS, now: Date.now() });
    expect(second).toMatchObject({ outcome: 'waiting', message: `evacuation of ${vm!.metadata.name} under way`, requests: 3 });

    // Past the settle timeout with the pod still there: the move is dropped, and the re-plan
    // leaves the pod alone (its evacuation is under way), so n1 is given back.
    const late = await defragStep(defragIo(kc, { dryRun: false }), { ...STEP_DEFAULTS, now: Date.now() + STEP_DEFAULTS.settleTimeoutMs });
    expect(late.verified).toMatchObject({ asPlanned: false, drift: 'its evacuation did not move the pod in time: re-planned' });
    expect(late.outcome).toBe('converged');
    expect(late.plan?.notFreed.find((x) => x.node === 'n1')?.reason).toContain('is marked request-evict-only and its evacuation is under way');
    const givenBack = await core.readNode({ name: 'n1' });
    expect(givenBack.spec?.unschedulable).toBeFalsy();
    expect(givenBack.metadata?.annotations?.[MARK]).toBeUndefined();
    expect(givenBack.metadata?.annotations?.[CORDONED]).toBeUndefined();

    const still = await core.readNamespacedPod({ namespace: ns, name: vm!.metadata.name! });
    expect(still.metadata?.uid).toBe(vm!.metadata.uid);
    expect(still.metadata?.deletionTimestamp).toBeUndefined();
    expect(still.status?.phase).toBe('Running');
    expect((await runningPods(core, ns)).filter((p) => p.metadata.labels?.app === 'vm')).toHaveLength(1);
  });
});
