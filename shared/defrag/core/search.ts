import type { EvictionLimits } from '../../evictor/limits.js';
import type { Built } from './build.js';
import { LoadOrder } from './load-order.js';
import { PlanLimits } from './plan-limits.js';
import type { Misfit } from './state.js';

// The search: free nodes one at a time, easiest first. For a candidate node every pod that
// counts is given a destination, largest first: the open node it fits that is most
// allocated afterwards (what MostAllocated scoring picks, so the scheduler tends to agree),
// or, when none fits, a swap: one pod that blocks it on some node moves elsewhere first and
// it takes that place. If any pod is left without one the candidate's moves are undone and
// it stays, with the reason. Freed nodes, the candidate and nodes empty at the start are
// never destinations, so no move undoes another and the lower bound holds.

export interface Step {
  pod: number;
  from: number;
  to: number;
  frees: number;
  /** Make-room half of a swap: the pod that takes this pod's place on `from`. */
  reserveFor?: number;
  why: string;
}

const MISFIT_WORDS: Record<Misfit, string> = {
  cpu: 'lack cpu',
  memory: 'lack memory',
  pods: 'are at their pod limit',
  selection: 'are excluded by its node selector, affinity or taints',
  'anti-affinity': 'hold a pod it excludes or that excludes it (anti-affinity)',
};

export class Search {
  private readonly steps: Step[] = [];
  private commits = 0;
  /**
   * Class -> [commits when it last found no place, why], for the candidate being tried only: a
   * class that found no place while freeing one node may find one for the next (that node is
   * open again, the moves made for it are undone), so the memo is cleared per candidate.
   */
  private readonly stuck = new Map<number, [number, string]>();
  private readonly spent: PlanLimits;
  private readonly byLoad: LoadOrder;
  private readonly increments = new Map<number, number>();

  constructor(
    private readonly b: Built,
    private readonly limits: EvictionLimits = {},
    private readonly makeRoomTries = 8,
  ) {
    this.byLoad = new LoadOrder(b.state);
    this.spent = new PlanLimits(
      limits,
      (p) => b.state.pods[p]!.metadata.namespace ?? '',
      (n) => b.state.nodes[n]!.metadata.name ?? '',
    );
  }

  private get s() { return this.b.state; } // prettier-ignore

  /** The open node where pod p fits and that is most allocated afterwards; -1 if none. */
  private direct(p: number, misfits?: Map<Misfit, number>): number {
    const s = this.s;
    const cls = s.classOf[p]!;
    const { cpu } = s.classes[cls]!;
    const { cpuUsed, cpuCap, closed } = s;
    let inc = this.increments.get(cls);
    if (inc === undefined) this.increments.set(cls, (inc = s.maxIncrement(cls)));
    let best = -1;
    let bestScore = -Infinity;
    const { order, loads } = this.byLoad;
    for (const n of order) {
      // Nodes further down score at most their load plus this pod's largest share.
      if (!misfits && loads[n]! + inc <= bestScore + 1e-9) break;
      if (closed[n]) continue;
      // The common rejection, inline: most nodes near the front lack cpu.
      if (!misfits && cpuUsed[n]! + cpu > cpuCap[n]! + 1e-9) continue;
      const why = s.misfit(cls, n);
      if (why !== undefined) {
        if (misfits) misfits.set(why, (misfits.get(why) ?? 0) + 1);
        continue;
      }
      const score = s.scoreAfter(cls, n);
      if (score > bestScore) [best, bestScore] = [n, score];
    }
    return best;
  }

  /**
   * A swap for p (on x): [blocker, its node, where it goes]. The state is simulated in the
   * order the moves will run (the blocker leaves while p is still on x, then p moves), so
   * every intermediate state is checked as it will happen; on success both have moved.
   */
  private makeRoom(p: number, x: number): [number, number, number] | undefined {
    const s = this.s;
    const cls = s.classOf[p]!;
    let tries = 0;
    for (let y = 0; y < s.nodes.length && tries < this.makeRoomTries; y++) {
      if (s.closed[y] || !s.admits(cls, y)) continue;
      const blockers = s.onNode[y]!.filter((q) => this.b.role[q] === 'counts' && this.b.pinned[q] === undefined && !this.isStuck(s.classOf[q]!));
      for (const q of blockers) {
        if (tries >= this.makeRoomTries) break;
        // Without q, y must have the room p needs; checked on the numbers before anything moves.
        const qc = s.classes[s.classOf[q]!]!;
        const pc = s.classes[cls]!;
        if (s.cpuUsed[y]! - qc.cpu + pc.cpu > s.cpuCap[y]! + 1e-9 || s.memUsed[y]! - qc.mem + pc.mem > s.memCap[y]! + 1e-3) continue;
        s.remove(q);
        s.remove(p);
        const roomMade = s.misfit(cls, y) === undefined;
        s.add(p, x);
        if (roomMade) {
          tries++;
          // The blocker must not land back where p is going.
          s.closed[y] = 1;
          const z = this.direct(q);
          s.closed[y] = 0;
          if (z >= 0) {
            s.add(q, z);
            s.remove(p);
            // Checked again with the blocker in place: they may share a wider domain.
            if (s.misfit(cls, y) === undefined) {
              s.add(p, y);
              return [q, y, z];
            }
            s.add(p, x);
            s.remove(q);
          }
        }
        s.add(q, y);
      }
    }
    return undefined;
  }

  private isStuck(cls: number): boolean { return this.stuck.get(cls)?.[0] === this.commits; } // prettier-ignore

  private describe(p: number): string {
    const m = this.s.pods[p]!.metadata;
    return `${m.namespace}/${m.name}`;
  }

  /** Why node x cannot be freed whatever else moves: a pod on it that must stay. */
  pinnedReason(x: number): string | undefined {
    const pinned = this.s.onNode[x]!.find((p) => this.b.role[p] === 'counts' && this.b.pinned[p] !== undefined);
    return pinned === undefined ? undefined : `${this.describe(pinned)} ${this.b.pinned[pinned]}`;
  }

  /** Plans the moves that free node x, or says why it cannot be freed; the state follows. */
  tryFree(x: number): string | undefined {
    const s = this.s;
    const pinned = this.pinnedReason(x);
    if (pinned !== undefined) return pinned;
    this.stuck.clear();
    const pods = s.onNode[x]!.filter((p) => this.b.role[p] === 'counts');
    const size = (p: number) => s.classes[s.classOf[p]!]!.cpu / (s.cpuCap[x]! || 1) + s.classes[s.classOf[p]!]!.mem / (s.memCap[x]! || 1);
    pods.sort((a, b) => size(b) - size(a) || a - b);
    const wasClosed = s.closed[x]!;
    s.closed[x] = 1;
    const journal: Step[] = [];
    const undo = (why: string) => {
      for (const st of journal.reverse()) {
        s.remove(st.pod);
        s.add(st.pod, st.from);
      }
      s.closed[x] = wasClosed;
      return why;
    };
    for (const p of pods) {
      const cls = s.classOf[p]!;
      const stuck = this.stuck.get(cls);
      if (stuck?.[0] === this.commits) return undo(`${this.describe(p)}: ${stuck[1]}`);
      s.remove(p);
      const to = this.direct(p);
      if (to >= 0) {
        s.add(p, to);
        journal.push({ pod: p, from: x, to, frees: x, why: 'most allocated node it fits' });
        continue;
      }
      s.add(p, x);
      const swap = this.makeRoom(p, x);
      if (swap) {
        const [q, y, z] = swap;
        journal.push({
          pod: q,
          from: y,
          to: z,
          frees: x,
          reserveFor: p,
          why: `swap: leaves ${s.nodes[y]!.metadata.name} so ${this.describe(p)} can take its place`,
        });
        journal.push({ pod: p, from: x, to: y, frees: x, why: `swap: takes the place ${this.describe(q)} left` });
        continue;
      }
      // Only a failure pays for the second scan that counts why each node refused.
      const misfits = new Map<Misfit, number>();
      s.remove(p);
      this.direct(p, misfits);
      s.add(p, x);
      const words = [...misfits].map(([k, v]) => `${v} ${MISFIT_WORDS[k]}`).join(', ');
      const why = `no destination (${words || 'no open nodes'}) and no single move makes room`;
      this.stuck.set(cls, [this.commits, why]);
      return undo(`${this.describe(p)}: ${why}`);
    }
    const limit = this.spent.refuses(journal, this.steps.length);
    if (limit) return undo(limit);
    this.spent.take(journal);
    this.steps.push(...journal);
    this.commits++;
    return undefined;
  }

  result(): Step[] { return this.steps; } // prettier-ignore
}
