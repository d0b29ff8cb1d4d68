import { describe, expect, it } from 'vitest';
import type { Decision, Kept, Plan } from '../../../selection/decision.js';
import type { ActResult } from '../act.js';
import type { PassSummary } from '../pass-summary.js';
import { AnswerLists } from './answer-lists.js';
import { DueSoon, MAX_DUE_SOON } from './due-soon.js';
import { Observers, type PassObserver } from './observer.js';

const decision = (name: string): Decision => ({
  namespace: 'ns',
  name,
  uid: `u-${name}`,
  profile: 'p',
  strategy: 'PodLifeTime',
  action: 'delete',
  reason: 'old',
});
const result = (name: string): ActResult => ({
  namespace: 'ns',
  name,
  uid: `u-${name}`,
  strategy: 'PodLifeTime',
  action: 'delete',
  outcome: 'deleted',
  dryRun: false,
  reason: 'old',
});
const kept = (name: string): Kept => ({ namespace: 'ns', name, uid: `u-${name}`, profile: 'p', strategy: 'PodLifeTime', reason: 'limit' });
const summary = () => ({ kept: 0, keptPods: [], results: [] }) as unknown as PassSummary;
const plan = (eligible: { name: string; at: number }[]): Plan =>
  ({ decisions: [], order: { run: [], key: [] }, kept: [], evaluated: 0, eligible: eligible.map((e) => ({ ...kept(e.name), at: e.at })) }) as Plan;

describe("a pass's observers", () => {
  it('are called in the order they subscribed, each onEnd awaited before the next; an empty kept list reaches none', async () => {
    const seen: string[] = [];
    const one: PassObserver = {
      onResult: (r) => seen.push(`one ${r.name}`),
      onKept: () => seen.push('one kept'),
      onEnd: async () => {
        await new Promise((r) => setTimeout(r, 5));
        seen.push('one end');
      },
    };
    const two: PassObserver = { onResult: (r) => seen.push(`two ${r.name}`), onEnd: () => void seen.push('two end') };
    const o = new Observers([one, undefined, two]);
    o.result(result('a'), decision('a'));
    o.kept([]);
    o.kept([kept('b')]);
    await o.end(summary());
    expect(seen).toEqual(['one a', 'two a', 'one kept', 'one end', 'two end']);
    expect(o.eligibleAt).toBe(false);
    expect(new Observers([two, new DueSoon(1000)]).eligibleAt).toBe(true);
  });

  it("the answer's lists keep the first results and kept pods up to the cap, and count every kept pod", () => {
    const lists = new AnswerLists(2);
    for (const n of ['a', 'b', 'c']) lists.onResult(result(n));
    lists.onKept([kept('k1'), kept('k2')]);
    lists.onKept([kept('k3')]);
    const s = summary();
    lists.onEnd(s);
    expect(s.results.map((r) => r.name)).toEqual(['a', 'b']);
    expect(s.kept).toBe(3);
    expect(s.keptPods).toEqual([
      { namespace: 'ns', name: 'k1', strategy: 'PodLifeTime', reason: 'limit' },
      { namespace: 'ns', name: 'k2', strategy: 'PodLifeTime', reason: 'limit' },
    ]);
  });

  it('the due list keeps the pods time brings in within its window, soonest first, at most MAX_DUE_SOON', () => {
    const due = new DueSoon(1000);
    due.onDecision({
      plan: plan([
        { name: 'late', at: 2500 },
        { name: 'b', at: 1900 },
        { name: 'a', at: 1200 },
      ]),
      decidedAt: 1000,
    });
    const s = summary();
    due.onEnd(s);
    expect(s.dueSoon?.map((e) => e.name)).toEqual(['a', 'b']);
    const many = new DueSoon(1000);
    many.onDecision({ plan: plan(Array.from({ length: MAX_DUE_SOON + 5 }, (_, i) => ({ name: `p${i}`, at: 1 }))), decidedAt: 0 });
    many.onEnd(s);
    expect(s.dueSoon).toHaveLength(MAX_DUE_SOON);
  });
});
