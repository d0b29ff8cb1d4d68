import { lowerBound } from './bound.js';
import { build, type Built } from './build.js';
import { exactPlan } from './exact.js';
import { Search, type Step } from './search.js';
import type { DefragInput, DefragOptions, DefragPlan, Move, PodRef } from './types.js';

// planDefrag: nodes, pods and budgets in; the ordered moves that free the most nodes the
// search finds, each freed node with its moves, each other occupied node with the reason it
// stays, and the lower bound that says how far from the best possible the plan can be.
// Pure and deterministic: the same cluster gives the same plan whatever the list order.

function ref(b: Built, p: number): PodRef {
  const m = b.state.pods[p]!.metadata;
  return { namespace: m.namespace ?? '', name: m.name ?? '', uid: m.uid ?? '' };
}

/** Occupied nodes in the order the search tries them: targets in progress, then the easiest. */
function candidates(b: Built, prefer: ReadonlySet<string>): number[] {
  const s = b.state;
  const counting = s.onNode.map((pods) => pods.filter((p) => b.role[p] === 'counts'));
  const load = (n: number) => s.cpuUsed[n]! / (s.cpuCap[n]! || 1) + s.memUsed[n]! / (s.memCap[n]! || 1);
  const occupied = s.nodes.map((_, n) => n).filter((n) => counting[n]!.length > 0);
  const keys = new Map(occupied.map((n) => [n, [prefer.has(s.nodes[n]!.metadata.name ?? '') ? 0 : 1, counting[n]!.length, load(n), n]]));
  return occupied.sort((x, y) => {
    const [a, b2] = [keys.get(x)!, keys.get(y)!];
    for (let i = 0; i < a.length; i++) if (a[i] !== b2[i]) return a[i]! - b2[i]!;
    return 0;
  });
}

function toMove(b: Built, st: Step, i: number): Move {
  const name = (n: number) => b.state.nodes[n]!.metadata.name ?? '';
  const pod = ref(b, st.pod);
  const owner = b.owner[st.pod]!;
  return {
    step: i + 1,
    pod,
    owner,
    from: name(st.from),
    to: name(st.to),
    frees: name(st.frees),
    ...(st.reserveFor !== undefined ? { reserveFor: ref(b, st.reserveFor) } : {}),
    reason: `${pod.namespace}/${pod.name} (${owner.kind} ${owner.name}) from ${name(st.from)} to ${name(st.to)}: ${st.why}`,
  };
}

/**
 * Freeing the easiest node first can spend the room a better set of nodes needed. On a small
 * cluster (where a search costs milliseconds) the search is run again with each occupied node
 * tried first, the rest in the usual order, and the plan that frees the most is kept (then the
 * fewest evictions, then the usual order). A plan in progress (preferTargets) is never reordered.
 */
const SMALL = 20_000;
const SMALL_TRIES = 200;
/**
 * Where the greedy search stops short of the lower bound, or leaves a node in progress unfreed,
 * a cluster this small (nodes times pods) is searched over move sequences too (exact.ts), within
 * a budget of states (never of time: the plan must not depend on the machine or its load).
 */
const EXACT = 1_000;
const EXACT_STATES = 5_000;

type Planned = DefragPlan & { order: string[] };

export function planDefrag(input: DefragInput, options: DefragOptions = {}): DefragPlan {
  const small = input.nodes.length * input.pods.length <= SMALL;
  // A small cluster also affords every make-room try a pod has, not the first 8.
  const opts = small ? { ...options, makeRoomTries: options.makeRoomTries ?? SMALL_TRIES } : options;
  const first = planInOrder(input, opts);
  let best = first;
  const names = first.order;
  const retry = !options.preferTargets?.length && small;
  for (const lead of retry ? names.slice(1) : []) {
    if (best.freed.length >= best.maxFreeable) break;
    const plan = planInOrder(input, opts, [lead, ...names.filter((n) => n !== lead)]);
    if (plan.freed.length > best.freed.length || (plan.freed.length === best.freed.length && plan.moves.length < best.moves.length)) best = plan;
  }
  if (input.nodes.length * input.pods.length <= EXACT) best = searchSequences(input, options, best);
  const { order: _, ...plan } = best;
  return plan;
}

/** The greedy plan, or one the search over move sequences finds that frees more (or, as many and every node in progress). */
function searchSequences(input: DefragInput, options: DefragOptions, greedy: Planned): Planned {
  const freedNames = new Set(greedy.freed.map((f) => f.node));
  const targets = (options.preferTargets ?? []).filter((t) => greedy.notFreed.some((x) => x.node === t) || freedNames.has(t));
  const unfinished = targets.some((t) => !freedNames.has(t));
  if (greedy.freed.length >= greedy.maxFreeable && !unfinished) return greedy;
  const b = build(input, options.gate);
  const s = b.state;
  const bound = lowerBound(b);
  const occupied = s.onNode.map((pods) => pods.some((p) => b.role[p] === 'counts'));
  // Nodes empty at the start are already free: filling one would undo the point of the plan.
  occupied.forEach((o, n) => (s.closed[n] ||= o ? 0 : 1));
  const index = new Map(s.nodes.map((n, i) => [n.metadata.name ?? '', i]));
  const budget = { left: EXACT_STATES };
  const atLeast = greedy.freed.length + (unfinished ? 0 : 1);
  const found = exactPlan(
    b,
    options.limits ?? {},
    targets.map((t) => index.get(t)!),
    atLeast,
    greedy.maxFreeable,
    budget,
  );
  if (!found || found.freed.length < atLeast) return greedy;
  const spent = EXACT_STATES - Math.max(0, budget.left);
  const order = occupied.flatMap((o, n) => (o ? [n] : []));
  const freed = new Set(found.freed);
  const notFreed = order
    .filter((n) => !freed.has(n))
    .map((n) => {
      const pinned = s.onNode[n]!.find((p) => b.role[p] === 'counts' && b.pinned[p] !== undefined);
      if (pinned !== undefined)
        return { node: s.nodes[n]!.metadata.name ?? '', reason: `${s.pods[pinned]!.metadata.namespace}/${s.pods[pinned]!.metadata.name} ${b.pinned[pinned]}` };
      const why =
        found.freed.length >= greedy.maxFreeable
          ? `the lower bound is reached: ${bound.nodes} nodes must stay (${bound.by})`
          : `no sequence of moves found that frees it too (${spent} states searched)`;
      return { node: s.nodes[n]!.metadata.name ?? '', reason: why };
    });
  return { ...assemble(b, bound, order.length, found.steps, found.freed, notFreed), order: greedy.order };
}

function planInOrder(input: DefragInput, options: DefragOptions, names?: readonly string[]): Planned {
  const b = build(input, options.gate);
  const s = b.state;
  const bound = lowerBound(b);
  const usual = candidates(b, new Set(options.preferTargets ?? []));
  const index = new Map(s.nodes.map((n, i) => [n.metadata.name ?? '', i]));
  const order = names ? names.map((n) => index.get(n)!) : usual;
  const occupied = order.length;
  const maxFreeable = Math.max(0, occupied - bound.nodes);
  // Nodes empty at the start are already free: filling one would undo the point of the plan.
  const inOrder = new Set(order);
  for (let n = 0; n < s.nodes.length; n++) if (!inOrder.has(n)) s.closed[n] = 1;

  const search = new Search(b, options.limits, options.makeRoomTries);
  const freedNodes: number[] = [];
  const notFreed: DefragPlan['notFreed'] = [];
  for (const x of order) {
    if (freedNodes.length >= maxFreeable) {
      const reason = search.pinnedReason(x) ?? `the lower bound is reached: ${bound.nodes} nodes must stay (${bound.by})`;
      notFreed.push({ node: s.nodes[x]!.metadata.name ?? '', reason });
      continue;
    }
    const why = search.tryFree(x);
    if (why === undefined) freedNodes.push(x);
    else notFreed.push({ node: s.nodes[x]!.metadata.name ?? '', reason: why });
  }

  const plan = assemble(b, bound, occupied, search.result(), freedNodes, notFreed);
  return { ...plan, order: usual.map((n) => s.nodes[n]!.metadata.name ?? '') };
}

/** The plan's moves, freed nodes (each with its steps) and summary from the search's steps. */
function assemble(
  b: Built,
  bound: DefragPlan['lowerBound'],
  occupied: number,
  steps: Step[],
  freedNodes: number[],
  notFreed: DefragPlan['notFreed'],
): DefragPlan {
  const s = b.state;
  const maxFreeable = Math.max(0, occupied - bound.nodes);
  const moves = steps.map((st, i) => toMove(b, st, i));
  const stepsOf = new Map<number, number[]>();
  steps.forEach((st, i) => {
    let list = stepsOf.get(st.frees);
    if (!list) stepsOf.set(st.frees, (list = []));
    list.push(i + 1);
  });
  const freed = freedNodes.map((node) => ({
    node: s.nodes[node]!.metadata.name ?? '',
    steps: stepsOf.get(node) ?? [],
    staying: s.onNode[node]!.filter((p) => b.role[p] === 'node-bound').length,
  }));
  const swaps = moves.filter((m) => m.reserveFor).length;
  const summary =
    `frees ${freed.length} of ${occupied} occupied nodes with ${moves.length} evictions (${swaps} swaps); ` +
    `at least ${bound.nodes} must stay (${bound.by}), so at most ${maxFreeable} can be freed`;
  return { moves, freed, notFreed, occupied, lowerBound: bound, maxFreeable, summary };
}
