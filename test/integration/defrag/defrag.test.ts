import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../harness/index.js';
import { defragStep } from '../../../shared/defrag/io/step.js';
import { CORDONED } from '../../../shared/defrag/core/marks.js';
import { converge } from './converge.js';
import { buildFragmented, createNodes, defragIo, STEP_DEFAULTS, MOST_ALLOCATED_PROFILES, nodeNames, occupiedNodes, runningPods } from './scenario.js';

// The fragmentation scenario at 6 nodes on a real control plane (kube-scheduler with
// MostAllocated, kwok nodes): the dry run shows the whole plan and writes nothing; stepping
// frees as many nodes as the plan said, each freed node left cordoned and marked, every
// replacement running, and no two web (or api) replicas ever sharing a node.

describe('defragmentation against a real scheduler', () => {
  let cluster: Cluster;
  const nodes = nodeNames('frag', 6);
  const ns = 'default';

  beforeAll(async () => {
    cluster = await startCluster({ name: 'defrag', kwokNodes: 0, schedulerProfiles: MOST_ALLOCATED_PROFILES });
    const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
    await createNodes(core, nodes);
    await buildFragmented(cluster.kubeConfig(), ns, nodes);
  });
  afterAll(async () => cluster?.stop());

  it('starts fragmented: every node busy', async () => {
    const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
    expect(occupiedNodes(await runningPods(core, ns)).size).toBe(6);
  });

  it('a dry run shows the whole plan (3 nodes, one swap) and changes nothing', async () => {
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const before = (await runningPods(core, ns)).map((p) => p.metadata.uid).sort();
    const r = await defragStep(defragIo(kc, { dryRun: true }), { ...STEP_DEFAULTS, now: Date.now() });
    expect(r.outcome).toBe('planned');
    expect(r.plan!.maxFreeable).toBe(3);
    expect(r.plan!.freed).toHaveLength(3);
    const moves = r.plan!.moves as { reserveFor?: unknown }[];
    expect(moves.filter((m) => m.reserveFor)).toHaveLength(1);
    expect((await runningPods(core, ns)).map((p) => p.metadata.uid).sort()).toEqual(before);
    const cordoned = (await core.listNode()).items.filter((n) => n.spec?.unschedulable);
    expect(cordoned).toEqual([]);
  });

  it('steps until converged and frees what the plan promised, safely', async () => {
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const result = await converge(kc);
    const pods = await runningPods(core, ns);
    expect(pods).toHaveLength(8);
    const occupied = occupiedNodes(pods);
    expect(6 - occupied.size).toBe(3);
    for (const app of ['web', 'api']) {
      const on = pods.filter((p) => p.metadata.labels?.app === app).map((p) => p.spec!.nodeName);
      expect(new Set(on).size).toBe(on.length);
    }
    const marked = (await core.listNode()).items.filter((n) => n.metadata?.annotations?.['kube-tidy.dev/defrag'] === 'freed');
    expect(marked.map((n) => n.metadata!.name).sort()).toEqual(nodes.filter((n) => !occupied.has(n)));
    expect(marked.every((n) => n.spec?.unschedulable && n.metadata?.annotations?.[CORDONED] === 'true')).toBe(true);
    // The steps said so as they marked them (kube_tidy_defrag_nodes_freed_total counts this).
    expect(result.nodesFreed).toBe(marked.length);
    // Every other cordon it made (the swap's held spot) was given back.
    const freed = new Set(marked.map((n) => n.metadata!.name));
    const others = (await core.listNode()).items.filter((n) => !freed.has(n.metadata!.name));
    expect(others.filter((n) => n.spec?.unschedulable || n.metadata?.annotations?.[CORDONED] || n.metadata?.annotations?.['kube-tidy.dev/defrag'])).toEqual([]);
    expect(result.evictions).toBeGreaterThanOrEqual(4);
    console.log(`[defrag] 6 nodes: ${JSON.stringify({ ...result, last: result.last.plan?.summary })}`);
  });
});
