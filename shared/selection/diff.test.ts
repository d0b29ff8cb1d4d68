import { describe, expect, it } from 'vitest';
import type { Decision, Kept } from './decision.js';
import { diffPlans, exceedsGate } from './diff.js';
import { decide } from './decide.js';
import { NOW, pod } from '../../test/fixtures/pods.js';
import { policyOf } from '../../test/fixtures/policy.js';

const d = (ns: string, name: string, strategy = 'PodLifeTime', reason = `${strategy}: why`): Decision => ({
  namespace: ns,
  name,
  uid: `uid-${ns}-${name}`,
  profile: 'p',
  strategy,
  action: 'delete',
  reason,
});
const k = (ns: string, name: string, reason: string, strategy = 'PodLifeTime'): Kept => ({
  namespace: ns,
  name,
  uid: `uid-${ns}-${name}`,
  profile: 'p',
  strategy,
  reason,
});

describe('diffPlans', () => {
  it('lists newly selected pods in the new order, then released in the old order, then changed strategy', () => {
    const before = { decisions: [d('a', 'gone-1'), d('a', 'both'), d('b', 'moves', 'RemoveFailedPods'), d('a', 'gone-2')] };
    const after = { decisions: [d('b', 'new-2'), d('a', 'both'), d('b', 'moves', 'PodLifeTime'), d('a', 'new-1')] };
    const diff = diffPlans(before, after);
    expect(diff.changes.map((c) => [c.change, c.name])).toEqual([
      ['new', 'new-2'],
      ['new', 'new-1'],
      ['released', 'gone-1'],
      ['released', 'gone-2'],
      ['changed', 'moves'],
    ]);
    expect(diff.changes.find((c) => c.name === 'moves')).toMatchObject({
      before: { status: 'selected', strategy: 'RemoveFailedPods' },
      after: { status: 'selected', strategy: 'PodLifeTime' },
    });
  });

  it('says why the other side left a pod alone when it selected but kept it, and "unselected" otherwise', () => {
    const before = { decisions: [d('a', 'released')], kept: [k('a', 'newly', 'limit maxNoOfPodsToEvictTotal reached'), k('a', 'newly', 'second reason')] };
    const after = { decisions: [d('a', 'newly'), d('a', 'fresh')], kept: [k('a', 'released', 'protected namespace', 'RemoveFailedPods')] };
    const byName = Object.fromEntries(diffPlans(before, after).changes.map((c) => [c.name, c]));
    expect(byName.newly!.before).toEqual({ status: 'kept', profile: 'p', strategy: 'PodLifeTime', reason: 'limit maxNoOfPodsToEvictTotal reached' });
    expect(byName.newly!.after).toMatchObject({ status: 'selected', reason: 'PodLifeTime: why', action: 'delete' });
    expect(byName.fresh!.before).toEqual({ status: 'unselected' });
    expect(byName.released!.after).toEqual({ status: 'kept', profile: 'p', strategy: 'RemoveFailedPods', reason: 'protected namespace' });
  });

  it('counts per namespace and strategy, sorted, with totals; the same selection is no change', () => {
    const before = { decisions: [d('b', 'x'), d('a', 'y'), d('a', 'z', 'RemoveFailedPods'), d('a', 'same')] };
    const after = { decisions: [d('a', 'z'), d('a', 'same'), d('a', 'n1'), d('c', 'n2', 'RemoveFailedPods')] };
    const diff = diffPlans(before, after);
    expect(diff.counts).toEqual([
      { namespace: 'a', strategy: 'PodLifeTime', before: 2, after: 3, new: 1, released: 1, changed: 1 },
      { namespace: 'a', strategy: 'RemoveFailedPods', before: 1, after: 0, new: 0, released: 0, changed: 0 },
      { namespace: 'b', strategy: 'PodLifeTime', before: 1, after: 0, new: 0, released: 1, changed: 0 },
      { namespace: 'c', strategy: 'RemoveFailedPods', before: 0, after: 1, new: 1, released: 0, changed: 0 },
    ]);
    expect(diff.totals).toEqual({ before: 4, after: 4, new: 2, released: 2, changed: 1 });
    expect(diffPlans(after, after)).toEqual({ changes: [], counts: expect.any(Array), totals: { before: 4, after: 4, new: 0, released: 0, changed: 0 } });
  });

  it('over two real plans of the same pods: a lower age threshold newly selects the younger failed pod', () => {
    const pods = [pod('old').age(9000).failed().build(), pod('mid').age(4000).failed().build(), pod('young').age(100).failed().build()];
    const plan = (seconds: number) => decide(policyOf([{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: seconds } }]), { pods }, NOW);
    const diff = diffPlans(plan(3600), plan(60));
    expect(diff.changes.map((c) => [c.change, c.name])).toEqual([['new', 'young']]);
    expect(diff.totals).toEqual({ before: 2, after: 3, new: 1, released: 0, changed: 0 });
  });
});

describe('exceedsGate', () => {
  it.each([
    { gate: { max: 3 }, n: 3, seen: 10, exceeded: false },
    { gate: { max: 3 }, n: 4, seen: 10, exceeded: true },
    { gate: { max: 0 }, n: 1, seen: 10, exceeded: true },
    { gate: { percent: 10 }, n: 3, seen: 30, exceeded: false },
    { gate: { percent: 10 }, n: 4, seen: 30, exceeded: true },
    { gate: { percent: 2.5 }, n: 1, seen: 40, exceeded: false },
    { gate: { percent: 0 }, n: 1, seen: 40, exceeded: true },
  ])('$n new of $seen pods against $gate: exceeded $exceeded', ({ gate, n, seen, exceeded }) => {
    expect(exceedsGate(gate, n, seen)).toBe(exceeded);
  });
});
