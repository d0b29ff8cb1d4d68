import type { Built } from './build.js';
import type { LowerBound } from './types.js';

// How many nodes must stay in use whatever is moved: the counting pods' requests against
// the largest capacities, the largest group of pods that exclude each other by
// anti-affinity (one node each), and the nodes holding a pod that cannot move. Each is a
// valid bound on its own, so their maximum is too; since the planner never fills an empty
// node, occupied minus this bound is the most nodes any plan can free.

function nodesFor(demand: number, caps: Float64Array): number {
  if (demand <= 0) return 0;
  const sorted = Float64Array.from(caps).sort().reverse();
  let sum = 0;
  for (let k = 0; k < sorted.length; k++) {
    sum += sorted[k]!;
    if (sum >= demand - 1e-9) return k + 1;
  }
  return sorted.length;
}

export function lowerBound(b: Built): LowerBound {
  const s = b.state;
  let cpu = 0;
  let mem = 0;
  let pods = 0;
  const pinnedNodes = new Set<number>();
  // Pods holding a term they also match: no two share a domain, so no two share a node.
  const selfExclusive = new Map<number, number>();
  for (let p = 0; p < s.pods.length; p++) {
    if (b.role[p] !== 'counts') continue;
    const c = s.classes[s.classOf[p]!]!;
    cpu += c.cpu;
    mem += c.mem;
    pods++;
    if (b.pinned[p] !== undefined) pinnedNodes.add(s.nodeOf[p]!);
    for (const t of c.holds) if (c.matchedBy.includes(t)) selfExclusive.set(t, (selfExclusive.get(t) ?? 0) + 1);
  }
  const candidates: [number, string][] = [
    [nodesFor(cpu, s.cpuCap), 'cpu requests over the largest allocatable cpu'],
    [nodesFor(mem, s.memCap), 'memory requests over the largest allocatable memory'],
    [nodesFor(pods, s.podCap), 'pod count over the largest pod capacity'],
    [pinnedNodes.size, 'nodes holding a pod that cannot move'],
  ];
  for (const [t, count] of selfExclusive) {
    const topo = s.aa.topologies[s.aa.terms[t]!.topology]!;
    // Only when every node is in some domain: pods on a node without the key escape the term.
    if (topo.domainOf.every((d) => d >= 0)) candidates.push([count, `${count} pods excluding each other (${s.aa.describe(t)})`]);
  }
  let best: [number, string] = [0, 'no pods'];
  for (const c of candidates) if (c[0] > best[0]) best = c;
  return { nodes: best[0], by: best[1] };
}
