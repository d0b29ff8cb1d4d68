import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { planDefrag } from './plan.js';
import { smallCluster } from '../../../test/fixtures/defrag-clusters.js';
import { optimum } from '../../../test/fixtures/defrag-optimum.js';
import { replay } from '../../../test/fixtures/defrag-replay.js';

// The planner against the exact optimum of small seeded clusters (issue 44): every plan
// replays validly step by step, never frees more than the optimum, and over a fixed set of
// 800 seeds frees a measured share of what the optimum frees. The oracle gives up on a few
// clusters whose proof is too large (undecided); those count for validity only.

const SEEDS = 800;
/** Measured over seeds 1-800: 0.790 before issue 44, 0.804 with the memo per candidate, 0.831 with the retried orders, 0.838 with every make-room try on small clusters. Issue 44 asks for 0.98 (open). */
const RATIO_FLOOR = 0.835;

// The oracle's search takes seconds on a loaded machine: no test here is timed, so the limit is wide.
describe('planDefrag against the exact optimum', { timeout: 900_000 }, () => {
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
      const o = optimum(input, limits);
      if (!o) {
        undecided++;
        continue;
      }
      expect(plan.freed.length, `seed ${seed}`).toBeLessThanOrEqual(o.freed);
      planned += plan.freed.length;
      best += o.freed;
    }
    expect(undecided).toBeLessThanOrEqual(SEEDS * 0.08);
    expect(planned / best).toBeGreaterThanOrEqual(RATIO_FLOOR);
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
