import { CoreV1Api } from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
import { deschedulerBin } from '../../infra/local/descheduler/build.js';
import { planDefrag } from '../../shared/defrag/index.js';
import { startCluster } from '../harness/index.js';
import { converge, runHighNodeUtilization } from '../integration/defrag/converge.js';
import { MOST_ALLOCATED_PROFILES, buildFragmented, createNodes, nodeNames, occupiedNodes, runningPods, settled } from '../integration/defrag/scenario.js';

// `npm run bench defrag-cluster`: the fragmentation scenario on real control planes at a few
// sizes. kube-tidy steps to convergence on one cluster; the descheduler's
// HighNodeUtilization runs once on a second cluster built the same way (same scheduler
// profile, same phases). Reports nodes freed against the lower bound, evictions and time.

async function scenario(n: number) {
  const cluster = await startCluster({ name: `frag${n}`, kwokNodes: 0, schedulerProfiles: MOST_ALLOCATED_PROFILES });
  const kc = cluster.kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const nodes = nodeNames('frag', n);
  await createNodes(core, nodes);
  const pods = await buildFragmented(kc, 'default', nodes);
  return { cluster, kc, core, nodes, pods };
}

async function kubeTidy(n: number) {
  const s = await scenario(n);
  try {
    const before = await runningPods(s.core, 'default');
    const plan = planDefrag({ nodes: (await s.core.listNode()).items as never, pods: before });
    const r = await converge(s.kc);
    const after = await settled(s.core, 'default', s.pods);
    return {
      occupied: occupiedNodes(before).size,
      lowerBound: plan.lowerBound.nodes,
      maxFreeable: plan.maxFreeable,
      planned: plan.freed.length,
      swaps: plan.moves.filter((m) => m.reserveFor).length,
      freed: n - occupiedNodes(after).size,
      evictions: r.evictions,
      asPlanned: r.asPlanned,
      drifted: r.drifted,
      convergeMs: r.ms,
    };
  } finally {
    await s.cluster.stop();
  }
}

async function highNodeUtilization(n: number) {
  const bin = deschedulerBin();
  if (!existsSync(bin)) return { skipped: `no descheduler binary at ${bin}: run node --import tsx infra/local/descheduler/build.ts` };
  const s = await scenario(n);
  try {
    const before = await runningPods(s.core, 'default');
    const r = runHighNodeUtilization(bin, s.cluster.kubeconfigPath, s.cluster.dir);
    const t0 = Date.now();
    const after = await settled(s.core, 'default', s.pods);
    const gone = before.filter((p) => !after.some((q) => q.metadata.uid === p.metadata.uid)).length;
    return { freed: n - occupiedNodes(after).size, evictions: gone, evictedLogLines: r.evictions, runMs: r.ms, settleMs: Date.now() - t0 };
  } finally {
    await s.cluster.stop();
  }
}

export async function runDefragClusterBench(sizes = [6, 12, 24]) {
  const out: Record<string, unknown> = {};
  for (const n of sizes) {
    out[`n${n}.kubeTidy`] = await kubeTidy(n);
    out[`n${n}.highNodeUtilization`] = await highNodeUtilization(n);
  }
  return out;
}
