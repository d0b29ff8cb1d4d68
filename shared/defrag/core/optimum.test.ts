import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { planDefrag } from './plan.js';
import { smallCluster } from '../../../test/fixtures/defrag-clusters.js';
import { optimum } from '../../../test/fixtures/defrag-optimum.js';
import { reachableOptimum, type Reachable } from '../../../test/fixtures/defrag-reachable.js';
import { replay } from '../../../test/fixtures/defrag-replay.js';
import type { DefragInput, DefragPlan } from './types.js';

// The planner against the exact optimum of small seeded clusters (issue 44): every plan
// replays validly step by step, never frees more than the optimum, and over a fixed set of
// 800 seeds frees a measured share of what the optimum frees. The optimum is what some
// sequence of single valid moves reaches (defrag-reachable.ts); where pods could end
// (defrag-optimum.ts) bounds it from above, so a plan that replays validly and frees that many
// settles it without the walk. The oracles give up on clusters whose proof is too large
// (undecided); those count for validity only.

const SEEDS = 800;
/**
 * Measured over seeds 1-800 against where pods could end (the upper bound): 0.790 before issue 44,
 * 0.804 with the memo per candidate, 0.831 with the retried orders, 0.838 with every make-room
 * try on small clusters. Against the optimum single valid moves reach: 342 of 370 nodes, 0.924
 * (36 undecided); with the search over move sequences on small clusters (exact.ts), 375 of 378,
 * 0.992 (33 undecided: a plan that reaches the upper bound settles its cluster). Issue 44 asks
 * for 0.98.
 */
const RATIO_FLOOR = 0.99;
/** 33 of 800 were undecided when measured (no state budget depends on time or load). */
const UNDECIDED_SHARE = 0.045;

/** The oracle's sequence as a plan, so the independent replay checks it as it checks a plan. */
function asPlan(input: DefragInput, r: Reachable): DefragPlan {
  const byUid = new Map(input.pods.map((p) => [p.metadata.uid!, p]));
  const moves = r.path.map((m, i) => {
    const p = byUid.get(m.uid)!;
    const owner = p.metadata.ownerReferences!.find((o) => o.controller)!;
    const pod = { namespace: p.metadata.namespace!, name: m.pod, uid: m.uid };
    return { step: i + 1, pod, owner: { kind: owner.kind, name: owner.name, uid: owner.uid }, from: m.from, to: m.to, frees: m.from, reason: 'oracle' };
  });
  const steps = moves.map((m) => m.step);
  const freed = r.nodes.map((node) => ({ node, steps, staying: 0 }));
  return { moves, freed, notFreed: [], occupied: 0, lowerBound: { nodes: 0, by: '' }, maxFreeable: 0, summary: '' };
}

// The oracle's search takes seconds on a loaded machine: no test here is timed, so the limit is
// wide. The file took 2,851 s at load 13-25 on the two cores (the 800 seeds past 900 s alone).
describe('planDefrag against the exact optimum', { timeout: 3_600_000 }, () => {
  test.prop([fc.integer({ min: 1, max: 1_000_000 })], { numRuns: 40 })('a plan replays validly and never beats the optimum', (seed) => {
    const { input, limits } = smallCluster(seed);
    const plan = planDefrag(input, { limits });
    expect(replay(input, plan, { limits })).toEqual([]);
    const best = optimum(input, limits);
    if (best) expect(plan.freed.length).toBeLessThanOrEqual(best.freed);
  });

  it(`frees at least ${RATIO_FLOOR} of what the optimum frees over ${SEEDS} fixed seeds`, () => {
    let planned = 0;
    let best = 0;
    let undecided = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const { input, limits } = smallCluster(seed);
      const plan = planDefrag(input, { limits });
      expect(replay(input, plan, { limits }), `seed ${seed}`).toEqual([]);
      const upper = optimum(input, limits);
      if (upper) expect(plan.freed.length, `seed ${seed}`).toBeLessThanOrEqual(upper.freed);
      // The plan's valid replay shows its count reachable: at the upper bound, that is the optimum.
      const exact = upper?.freed === plan.freed.length ? upper : reachableOptimum(input, limits);
      if (!exact) {
        undecided++;
        continue;
      }
      expect(plan.freed.length, `seed ${seed}`).toBeLessThanOrEqual(exact.freed);
      planned += plan.freed.length;
      best += exact.freed;
    }
    expect(undecided).toBeLessThanOrEqual(SEEDS * UNDECIDED_SHARE);
    expect(planned / best).toBeGreaterThanOrEqual(RATIO_FLOOR);
  });

  it('where pods could end is only an upper bound: on seed 18 no first move is valid (every node is full in cpu or memory)', () => {
    // The relaxation empties n2 by moving pods all at once; one at a time, none has a place.
    const { input, limits } = smallCluster(18);
    expect(optimum(input, limits)?.freed).toBe(1);
    expect(reachableOptimum(input, limits)?.freed).toBe(0);
    expect(planDefrag(input, { limits }).moves).toEqual([]);
  });

  it.each([17, 561, 610])("the oracle's own sequence of moves for seed %i replays validly and frees what it says", (seed) => {
    const { input, limits } = smallCluster(seed);
    const best = reachableOptimum(input, limits)!;
    expect(best.freed).toBe(1);
    expect(replay(input, asPlan(input, best), { limits })).toEqual([]);
  });

  it('a pod makes room for a pod that makes room for the last pod of a node: seed 561 frees n2 by a chain of three moves', () => {
    // Every open node lacks memory for b/app1-0; b/app0-1 could leave n0 for it, but has no place
    // either until b/app3-0 leaves n5: a swap has one blocker, this needs two in a row.
    const { input, limits } = smallCluster(561);
    const plan = planDefrag(input, { limits });
    expect(plan.freed.map((f) => f.node)).toEqual(['n2']);
    expect(plan.moves.map((m) => [m.pod.name, m.from, m.to, m.reserveFor?.name])).toEqual([
      ['app3-0', 'n5', 'n3', 'app0-1'],
      ['app0-1', 'n0', 'n5', 'app1-0'],
      ['app1-0', 'n2', 'n0', undefined],
    ]);
    expect(replay(input, plan, { limits })).toEqual([]);
  });

  it('under eviction limits too: seed 17 frees n0 with 4 of its 5 evictions (3 per namespace) by a chain', () => {
    const { input, limits } = smallCluster(17);
    expect(limits).toEqual({ perNode: 4, perNamespace: 3, total: 5 });
    const plan = planDefrag(input, { limits });
    expect(plan.freed.map((f) => f.node)).toEqual(['n0']);
    expect(plan.moves).toHaveLength(4);
    expect(replay(input, plan, { limits })).toEqual([]);
  });

  it('a workload that found no place while one node was tried is tried again for the next (seed 663)', () => {
    // n1 fails first (app0 has no place then); n4, holding app0-0 too, used to be refused with
    // n1's reason, "no destination (2 lack cpu ...)", while n1 itself, open again, had room.
    const { input, limits } = smallCluster(663);
    const plan = planDefrag(input, { limits });
    expect(plan.freed.map((f) => f.node)).toEqual(['n4']);
    expect(optimum(input, limits)?.freed).toBe(1);
  });
});
