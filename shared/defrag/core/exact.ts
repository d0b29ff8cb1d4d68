import type { EvictionLimits } from '../../evictor/limits.js';
import type { Built } from './build.js';
import type { Step } from './search.js';
import { sequenceFor, StateKeys, type SeqMove, type StateBudget } from './sequence.js';

// Which nodes to free, on a small cluster, when the greedy search stops short of the lower
// bound: sets of nodes are tried by size, from the count to beat up, easiest first (fewest
// pods, least loaded), each set first checked on the numbers (what its pods request must fit
// the room left on the nodes that stay open) and then searched for moves that empty it
// (sequence.ts). The first set of a size found is kept and the next size tried; a size where no
// set is found within the budget ends the search (any sequence emptying a larger set empties
// each of its subsets too). Sets always include `required`: the nodes a plan in progress is
// freeing, so a step's re-plan continues what the last step began.

export interface ExactPlan {
  steps: Step[];
  freed: number[];
}

/** The nodes a search may free: occupied (a pod that counts) and holding no pod that must stay. */
function candidates(b: Built): number[] {
  const s = b.state;
  const counting = (n: number) => s.onNode[n]!.filter((p) => b.role[p] === 'counts');
  const load = (n: number) => s.cpuUsed[n]! / (s.cpuCap[n]! || 1) + s.memUsed[n]! / (s.memCap[n]! || 1);
  const free = s.nodes.map((_, n) => n).filter((n) => counting(n).length > 0 && counting(n).every((p) => b.pinned[p] === undefined));
  const key = new Map(free.map((n) => [n, [counting(n).length, load(n), n] as const]));
  return free.sort((x, y) => {
    const [a, c] = [key.get(x)!, key.get(y)!];
    return a[0] - c[0] || a[1] - c[1] || a[2] - c[2];
  });
}

/** What the set's pods request fits the room left on the open nodes outside it (necessary, cheap). */
function roomFor(b: Built, set: ReadonlySet<number>, open: readonly number[]): boolean {
  const s = b.state;
  let [cpu, mem, pods] = [0, 0, 0];
  for (const x of set) {
    for (const p of s.onNode[x]!) {
      if (b.role[p] !== 'counts') continue;
      const c = s.classes[s.classOf[p]!]!;
      [cpu, mem, pods] = [cpu + c.cpu, mem + c.mem, pods + 1];
    }
  }
  for (const y of open) [cpu, mem, pods] = [cpu - (s.cpuCap[y]! - s.cpuUsed[y]!), mem - (s.memCap[y]! - s.memUsed[y]!), pods - (s.podCap[y]! - s.podCount[y]!)];
  return cpu <= 1e-9 && mem <= 1e-3 && pods <= 0;
}

function* combinations(xs: readonly number[], k: number, from = 0): Generator<number[]> {
  if (k === 0) yield [];
  else for (let i = from; i <= xs.length - k; i++) for (const rest of combinations(xs, k - 1, i + 1)) yield [xs[i]!, ...rest];
}

export function exactPlan(
  b: Built,
  limits: EvictionLimits,
  required: readonly number[],
  atLeast: number,
  most: number,
  budget: StateBudget,
): ExactPlan | undefined {
  const s = b.state;
  const all = candidates(b);
  if (!required.every((n) => all.includes(n))) return undefined;
  const rest = all.filter((n) => !required.includes(n));
  const keys = new StateKeys(s.classes.length, s.nodes.length);
  let best: ExactPlan | undefined;
  for (let size = Math.max(atLeast, required.length, 1); size <= Math.min(most, all.length) && budget.left > 0; size++) {
    let found: ExactPlan | undefined;
    for (const more of combinations(rest, size - required.length)) {
      if (budget.left-- <= 0) break;
      const set = new Set([...required, ...more]);
      const open = s.nodes.map((_, n) => n).filter((n) => !s.closed[n] && !set.has(n));
      if (!roomFor(b, set, open)) continue;
      const moves = sequenceFor(b, set, open, limits, budget, keys);
      if (moves) {
        found = { steps: toSteps(b, set, moves), freed: [...set] };
        break;
      }
    }
    if (!found) break;
    best = found;
  }
  return best;
}

/**
 * Moves of the set's own pods free the node they leave; a move that makes room (a pod of
 * another node) serves the next move of the set's pods, and holds its spot for the pod that
 * lands there next, as a swap's first half does.
 */
function toSteps(b: Built, set: ReadonlySet<number>, moves: readonly SeqMove[]): Step[] {
  const name = (n: number) => b.state.nodes[n]!.metadata.name ?? '';
  const pod = (p: number) => `${b.state.pods[p]!.metadata.namespace}/${b.state.pods[p]!.metadata.name}`;
  return moves.map((m, i) => {
    if (set.has(m.from)) return { ...m, frees: m.from, why: `frees ${name(m.from)}: a place the search over move sequences found` };
    const served = moves.slice(i + 1).find((n) => set.has(n.from))!;
    const taker = moves.slice(i + 1).find((n) => n.to === m.from);
    return {
      ...m,
      frees: served.from,
      ...(taker ? { reserveFor: taker.pod } : {}),
      why: taker ? `makes room: leaves ${name(m.from)} so ${pod(taker.pod)} can take its place` : `makes room for the moves that free ${name(served.from)}`,
    };
  });
}
