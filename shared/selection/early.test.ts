import { describe, expect, it } from 'vitest';
import { decide } from './decide.js';
import { carriesOn, splitEarly, writesEarly } from './early.js';
import { snapshotNeeds } from './needs.js';
import { policyOf } from '../../test/fixtures/policy.js';
import { NOW, pod } from '../../test/fixtures/pods.js';

const lifetime = [{ name: 'PodLifeTime', args: { states: ['Failed', 'Running'], maxPodLifeTimeSeconds: 60 } }];
const none = { brakes: false, fanOut: false };

describe('writesEarly: only where the order cannot change what is removed', () => {
  it('a policy with no limit, no retention, no brakes and no fan-out writes early', () => {
    expect(writesEarly(policyOf(lifetime), none)).toBe(true);
  });

  it.each([
    ['maxNoOfPodsToEvictTotal', { maxNoOfPodsToEvictTotal: 5 }],
    ['maxNoOfPodsToEvictPerNamespace', { maxNoOfPodsToEvictPerNamespace: 5 }],
    ['maxNoOfPodsToEvictPerNode', { maxNoOfPodsToEvictPerNode: 5 }],
    ['kubeTidy.retention', { kubeTidy: { retention: [{ failed: 3 }] } }],
  ])('not with %s (it keeps the first in the order)', (_, top) => {
    expect(writesEarly(policyOf(lifetime, { top }), none)).toBe(false);
  });

  it('not with brakes (they charge in the order) nor with a fan-out (shards are the plan in order)', () => {
    expect(writesEarly(policyOf(lifetime), { brakes: true, fanOut: false })).toBe(false);
    expect(writesEarly(policyOf(lifetime), { brakes: false, fanOut: true })).toBe(false);
  });
});

describe('carriesOn: to the next tick only when each decision rests on the pod alone', () => {
  it('the common policy reads nothing but the pods: carried', () => {
    const p = policyOf(lifetime);
    expect(carriesOn(p, none, snapshotNeeds(p))).toBe(true);
  });

  it('nodeFit reads nodes and other pods, which change under a carried plan: not carried', () => {
    const p = policyOf(lifetime, { evictor: { nodeFit: true } });
    expect(writesEarly(p, none)).toBe(true);
    expect(carriesOn(p, none, snapshotNeeds(p))).toBe(false);
  });

  it('never where it may not write early', () => {
    const p = policyOf(lifetime, { top: { maxNoOfPodsToEvictTotal: 5 } });
    expect(carriesOn(p, none, snapshotNeeds(p))).toBe(false);
  });
});

describe('splitEarly', () => {
  it('deletes (stored Succeeded/Failed pods) now; evictions (running pods meet their PDB) keep their places in the order', () => {
    const policy = policyOf(lifetime, { evictor: { evictFailedBarePods: true } });
    const pods = [
      pod('f1').age(600).failed().build(),
      pod('r1').age(500).running().build(),
      pod('f2').age(400).failed().build(),
      pod('r2').age(300).running().build(),
    ];
    const plan = decide(policy, { pods }, NOW);
    expect(plan.decisions).toHaveLength(4);
    const { early, rest } = splitEarly(plan);
    expect(early.map((d) => [d.name, d.action])).toEqual([
      ['f1', 'delete'],
      ['f2', 'delete'],
    ]);
    expect(rest.decisions.map((d) => [d.name, d.action])).toEqual([
      ['r1', 'evict'],
      ['r2', 'evict'],
    ]);
    // Each eviction keeps its own run and key (the arrays stay aligned with the decisions).
    const at = (name: string) => plan.decisions.findIndex((d) => d.name === name);
    expect(rest.order.key).toEqual([plan.order.key[at('r1')], plan.order.key[at('r2')]]);
    expect(rest.order.run).toEqual([plan.order.run[at('r1')], plan.order.run[at('r2')]]);
  });
});
