import type { EvictionLimits } from '../../evictor/limits.js';
import type { Built } from './build.js';
import { Heap } from './heap.js';

// The moves that empty a chosen set of nodes, on a small cluster: a best-first search over the
// states single valid moves reach. A move is one pod leaving its node for an open node outside
// the set, checked (capacity, pod count, selection, anti-affinity both ways, the eviction
// limits) in the state it runs in. Besides the set's own pods, any pod that may move can move
// elsewhere first to make room: a chain (c leaves z so b fits there, so a fits where b was)
// that the greedy search's one-blocker swap cannot make. States come out fewest pods left on
// the set first, then fewest moves: the search dives while it can and, where no pod of the
// set has a place, tries chains shortest first. Pods of one class are interchangeable, so a
// state is known by how many of each class each node holds (an additive hash), and one found
// again with no fewer moves is not searched again. The budget counts states taken, never time,
// so the same cluster gives the same plan on any machine and under any load.

export interface SeqMove {
  pod: number;
  from: number;
  to: number;
}

interface Entry extends SeqMove {
  parent?: Entry;
  g: number;
  h: number;
  seq: number;
  k1: number;
  k2: number;
}

/** States the searches of one plan may still take (shared by every set tried). */
export interface StateBudget {
  left: number;
}

/** Per class and node, two 32-bit words: a state's key is their sum over its pods. */
export class StateKeys {
  readonly a: Uint32Array;
  readonly b: Uint32Array;

  constructor(
    classes: number,
    readonly nodes: number,
  ) {
    let x = 0x9e3779b9;
    const next = () => {
      // xorshift32: fixed seed, so keys (and the order states are met in) never vary.
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x >>> 0;
    };
    this.a = Uint32Array.from({ length: classes * nodes }, next);
    this.b = Uint32Array.from({ length: classes * nodes }, next);
  }
}

/** Most moves a sequence may spend beyond one per pod of the set, when no limit says fewer. */
const EXTRA_MOVES = 8;

export function sequenceFor(
  b: Built,
  free: ReadonlySet<number>,
  open: readonly number[],
  limits: EvictionLimits,
  budget: StateBudget,
  keys: StateKeys,
): SeqMove[] | undefined {
  const s = b.state;
  const movable = (p: number) => b.role[p] === 'counts' && b.pinned[p] === undefined;
  let h0 = 0;
  let [k1, k2] = [0, 0];
  for (let p = 0; p < s.pods.length; p++) {
    if (b.role[p] !== 'counts') continue;
    const n = s.nodeOf[p]!;
    if (free.has(n)) h0++;
    const i = s.classOf[p]! * keys.nodes + n;
    [k1, k2] = [(k1 + keys.a[i]!) >>> 0, (k2 + keys.b[i]!) >>> 0];
  }
  const root: Entry = { pod: -1, from: -1, to: -1, g: 0, h: h0, seq: 0, k1, k2 };
  if (h0 === 0) return [];
  const maxMoves = Math.min(limits.total ?? Infinity, h0 + EXTRA_MOVES);
  const heap = new Heap<Entry>((x, y) => x.h < y.h || (x.h === y.h && (x.g < y.g || (x.g === y.g && x.seq < y.seq))));
  const seen = new Map<number, number>([[key(root), 0]]);
  let seq = 0;
  heap.push(root);
  const sources = [...new Set([...free, ...s.nodes.keys()])];
  for (let e = heap.pop(); e; e = heap.pop()) {
    if (budget.left-- <= 0) return undefined;
    if ((seen.get(key(e)) ?? Infinity) < e.g) continue;
    const path = pathOf(e);
    const spent = apply(b, path, limits);
    let done: Entry | undefined;
    if (e.g < maxMoves) {
      for (const x of sources) {
        const tried = new Set<number>();
        for (const p of [...s.onNode[x]!]) {
          const cls = s.classOf[p]!;
          if (!movable(p) || tried.has(cls) || !spent.allows(p, x)) continue;
          tried.add(cls);
          s.remove(p);
          for (const y of byScore(b, cls, open, x)) {
            const i = cls * keys.nodes;
            const child: Entry = {
              pod: p,
              from: x,
              to: y,
              parent: e,
              g: e.g + 1,
              h: e.h - (free.has(x) ? 1 : 0),
              seq: ++seq,
              k1: (e.k1 - keys.a[i + x]! + keys.a[i + y]!) >>> 0,
              k2: (e.k2 - keys.b[i + x]! + keys.b[i + y]!) >>> 0,
            };
            if ((seen.get(key(child)) ?? Infinity) <= child.g) continue;
            seen.set(key(child), child.g);
            if (child.h === 0) done ??= child;
            heap.push(child);
          }
          s.add(p, x);
          if (done) break;
        }
        if (done) break;
      }
    }
    undo(b, path);
    if (done) return pathOf(done);
  }
  return undefined;
}

function key(e: Entry): number {
  return e.k1 * 2 ** 21 + (e.k2 >>> 11);
}

function pathOf(e: Entry): SeqMove[] {
  const out: SeqMove[] = [];
  for (let x: Entry | undefined = e; x?.parent; x = x.parent) out.push({ pod: x.pod, from: x.from, to: x.to });
  return out.reverse();
}

/** The open nodes (not x) where a pod of class cls fits now, most allocated afterwards first (MostAllocated's pick). */
function byScore(b: Built, cls: number, open: readonly number[], x: number): number[] {
  const s = b.state;
  const fit = open.filter((y) => y !== x && s.misfit(cls, y) === undefined);
  const score = new Map(fit.map((y) => [y, s.scoreAfter(cls, y)]));
  return fit.sort((m, n) => score.get(n)! - score.get(m)! || m - n);
}

/** Makes the moves (the state follows) and counts what they spent of the eviction limits. */
function apply(b: Built, path: readonly SeqMove[], limits: EvictionLimits) {
  const s = b.state;
  const perNode = new Map<number, number>();
  const perNs = new Map<string, number>();
  const ns = (p: number) => s.pods[p]!.metadata.namespace ?? '';
  for (const m of path) {
    s.remove(m.pod);
    s.add(m.pod, m.to);
    perNode.set(m.from, (perNode.get(m.from) ?? 0) + 1);
    perNs.set(ns(m.pod), (perNs.get(ns(m.pod)) ?? 0) + 1);
  }
  return {
    /** One more eviction of p from x stays within the per-node and per-namespace limits (the total caps the depth). */
    allows: (p: number, x: number) =>
      (limits.perNode === undefined || (perNode.get(x) ?? 0) < limits.perNode) &&
      (limits.perNamespace === undefined || (perNs.get(ns(p)) ?? 0) < limits.perNamespace),
  };
}

function undo(b: Built, path: readonly SeqMove[]): void {
  for (let i = path.length - 1; i >= 0; i--) {
    const m = path[i]!;
    b.state.remove(m.pod);
    b.state.add(m.pod, m.from);
  }
}
