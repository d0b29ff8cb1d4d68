import { describe, expect, it } from 'vitest';
import { planDefrag } from './plan.js';
import type { DefragInput, DefragOptions, DefragPlan } from './types.js';
import { node, pdb, wpod } from '../../../test/fixtures/defrag.js';
import { replay } from '../../../test/fixtures/defrag-replay.js';
import { ANNOTATIONS } from '../../evacuation/core/annotations.js';

const EVICT_ONLY = ANNOTATIONS.requestEvictOnly;

// Cases named as the situation and what the plan must say about it. Every plan is also
// replayed by the independent checker: a case that plans something invalid fails.

interface Case {
  name: string;
  input: DefragInput;
  options?: DefragOptions;
  expect: (plan: DefragPlan) => void;
}

const moves = (p: DefragPlan) => p.moves.map((m) => `${m.pod.name}:${m.from}->${m.to}`);
const reasonFor = (p: DefragPlan, n: string) => p.notFreed.find((x) => x.node === n)?.reason ?? '';

const cases: Case[] = [
  {
    name: 'a lone replica moves to the most allocated node it fits, and its node frees',
    input: {
      nodes: [node('n1'), node('n2'), node('n3')],
      pods: [wpod('a-1').app('a').on('n1').build(), wpod('b-1').app('b').on('n2').cpu(2).build(), wpod('c-1').app('c').on('n3').cpu(3).build()],
    },
    expect: (p) => {
      expect(moves(p)).toEqual(['a-1:n1->n3']);
      expect(p.freed.map((f) => f.node)).toEqual(['n1']);
    },
  },
  {
    name: 'a replica never joins a node holding a sibling it excludes; the node stays, saying why',
    input: {
      nodes: [node('n1'), node('n2')],
      pods: [wpod('a-1').app('a').on('n1').antiAffinity().build(), wpod('a-2').app('a').on('n2').antiAffinity().build()],
    },
    expect: (p) => {
      expect(p.moves).toEqual([]);
      expect(p.lowerBound.nodes).toBe(2);
      expect(p.maxFreeable).toBe(0);
      expect(reasonFor(p, 'n1')).toContain('lower bound');
    },
  },
  {
    name: 'a swap: the blocker leaves first for elsewhere, holding its spot for the replica',
    input: {
      nodes: [node('n1'), node('n2'), node('n3')],
      pods: [
        wpod('a-1').app('a').on('n1').cpu(2).antiAffinity().build(),
        wpod('a-2').app('a').on('n2').cpu(2).antiAffinity().build(),
        wpod('s-1').app('s').on('n2').cpu(1).build(),
        wpod('b-1').app('b').on('n3').cpu(1).build(),
        wpod('c-1').app('c').on('n3').cpu(2).build(),
      ],
    },
    expect: (p) => {
      expect(moves(p)).toEqual(['b-1:n3->n2', 'a-1:n1->n3']);
      expect(p.moves[0]!.reserveFor?.name).toBe('a-1');
      expect(p.freed).toEqual([{ node: 'n1', steps: [1, 2], staying: 0 }]);
    },
  },
  {
    name: 'a pod without a controller pins its node',
    input: { nodes: [node('n1'), node('n2')], pods: [wpod('x').on('n1').bare().build(), wpod('b-1').app('b').on('n2').build()] },
    expect: (p) => {
      expect(reasonFor(p, 'n1')).toContain('default/x has no controller');
      expect(moves(p)).toEqual(['b-1:n2->n1']);
    },
  },
  {
    name: 'DaemonSet pods do not keep a node busy and never move',
    input: {
      nodes: [node('n1'), node('n2')],
      pods: [
        wpod('a-1').app('a').on('n1').build(),
        wpod('ds-1').daemonSet().on('n1').build(),
        wpod('ds-2').daemonSet().on('n2').build(),
        wpod('b-1').app('b').on('n2').cpu(2).build(),
      ],
    },
    expect: (p) => {
      expect(moves(p)).toEqual(['a-1:n1->n2']);
      expect(p.freed).toEqual([{ node: 'n1', steps: [1], staying: 1 }]);
    },
  },
  {
    name: 'a pod the gate protects pins its node, with the gate reason',
    input: { nodes: [node('n1'), node('n2')], pods: [wpod('a-1').app('a').on('n1').annotate('keep').build(), wpod('b-1').app('b').on('n2').build()] },
    options: { gate: (pod) => (pod.metadata.annotations?.keep !== undefined ? 'annotated keep' : undefined) },
    expect: (p) => expect(reasonFor(p, 'n1')).toContain('is protected: annotated keep'),
  },
  {
    name: 'a pod marked request-evict-only is planned as any other (the move asks for its evacuation)',
    input: { nodes: [node('n1'), node('n2')], pods: [wpod('a-1').app('a').on('n1').annotate(EVICT_ONLY).build(), wpod('b-1').app('b').on('n2').build()] },
    expect: (p) => expect(moves(p)).toEqual(['a-1:n1->n2']),
  },
  ...[ANNOTATIONS.request, ANNOTATIONS.state].map((underWay) => ({
    name: `a marked pod whose evacuation is under way (${underWay}) is not chosen again: its node stays, saying why`,
    input: {
      nodes: [node('n1'), node('n2')],
      pods: [wpod('a-1').app('a').on('n1').annotate(EVICT_ONLY).annotate(underWay, 'defrag').build(), wpod('b-1').app('b').on('n2').build()],
    },
    expect: (p: DefragPlan) => {
      expect(p.moves.filter((m) => m.pod.name === 'a-1')).toEqual([]);
      expect(reasonFor(p, 'n1')).toContain('is marked request-evict-only and its evacuation is under way');
    },
  })),
  {
    name: 'a budget that allows no disruption pins its pods; one that allows one lets them move',
    input: {
      nodes: [node('n1'), node('n2'), node('n3')],
      pods: [wpod('a-1').app('a').on('n1').cpu(2).build(), wpod('b-1').app('b').on('n2').build(), wpod('c-1').app('c').on('n3').cpu(3).build()],
      pdbs: [pdb('a', 'a', 0), pdb('b', 'b', 1)],
    },
    expect: (p) => {
      expect(reasonFor(p, 'n1')).toContain('PodDisruptionBudget default/a allows no disruption');
      expect(moves(p)).toEqual(['b-1:n2->n3']);
    },
  },
  {
    name: 'a pod under two budgets stays: the Eviction API refuses it',
    input: {
      nodes: [node('n1'), node('n2')],
      pods: [wpod('a-1').app('a').on('n1').build(), wpod('b-1').app('b').on('n2').cpu(2).build()],
      pdbs: [pdb('a', 'a', 1), pdb('a2', 'a', 1)],
    },
    expect: (p) => expect(reasonFor(p, 'n1')).toContain('covered by 2 PodDisruptionBudgets'),
  },
  {
    name: 'maxNoOfPodsToEvictPerNode stops a node whose emptying needs more evictions',
    input: {
      nodes: [node('n1', { cpu: '8' }), node('n2', { cpu: '8' })],
      pods: [
        wpod('a-1').app('a').on('n1').build(),
        wpod('a-2').app('a').on('n1').build(),
        wpod('b-1').app('b').on('n2').cpu(2).build(),
        wpod('b-2').app('b').on('n2').build(),
      ],
    },
    options: { limits: { perNode: 1 } },
    expect: (p) => {
      expect(p.moves).toEqual([]);
      expect(reasonFor(p, 'n1')).toContain('maxNoOfPodsToEvictPerNode is 1');
    },
  },
  {
    name: 'maxNoOfPodsToEvictTotal bounds the whole plan',
    input: {
      nodes: [node('n1'), node('n2'), node('n3'), node('n4', { cpu: '8' })],
      pods: ['1', '2', '3'].map((i) => wpod(`a-${i}`).app('a').on(`n${i}`).build()).concat(wpod('big').app('big').on('n4').cpu(4).build()),
    },
    options: { limits: { total: 2 } },
    expect: (p) => {
      expect(p.moves).toHaveLength(2);
      expect(reasonFor(p, 'n3')).toContain('maxNoOfPodsToEvictTotal 2 leaves 0');
    },
  },
  {
    name: 'an unschedulable node is freed but never receives a pod',
    input: {
      nodes: [node('n1', { unschedulable: true }), node('n2')],
      pods: [wpod('a-1').app('a').on('n1').cpu(2).build(), wpod('b-1').app('b').on('n2').build()],
    },
    expect: (p) => expect(moves(p)).toEqual(['a-1:n1->n2']),
  },
  {
    name: 'node selectors and taints limit where a pod may go',
    input: {
      nodes: [
        node('n1', { labels: { pool: 'gpu' } }),
        node('n2', { taints: [{ key: 'dedicated', effect: 'NoSchedule' }] }),
        node('n3'),
        node('n4', { labels: { pool: 'gpu' } }),
      ],
      pods: [
        wpod('g-1').app('g').on('n1').nodeSelector({ pool: 'gpu' }).build(),
        wpod('t-1').app('t').on('n2').tolerate('dedicated').cpu(3).build(),
        wpod('c-1').app('c').on('n3').cpu(3).build(),
        wpod('h-1').app('h').on('n4').nodeSelector({ pool: 'gpu' }).cpu(2).build(),
      ],
    },
    expect: (p) => expect(moves(p)).toEqual(['g-1:n1->n4']),
  },
  {
    name: 'a node empty at the start is never filled',
    input: {
      nodes: [node('n1'), node('n2'), node('n3', { cpu: '8' })],
      pods: [wpod('a-1').app('a').on('n1').cpu(3).build(), wpod('b-1').app('b').on('n2').cpu(3).build()],
    },
    expect: (p) => {
      expect(p.moves).toEqual([]);
      expect(p.occupied).toBe(2);
      expect(reasonFor(p, 'n1')).toContain('1 lack cpu');
    },
  },
  {
    name: 'zone anti-affinity keeps replicas in different zones while nodes free',
    input: {
      nodes: [node('n1', { labels: { zone: 'z1' } }), node('n2', { labels: { zone: 'z1' } }), node('n3', { labels: { zone: 'z2' } })],
      pods: [
        wpod('a-1').app('a').on('n1').antiAffinity('a', 'zone').build(),
        wpod('a-2').app('a').on('n3').antiAffinity('a', 'zone').build(),
        wpod('b-1').app('b').on('n2').cpu(2).build(),
      ],
    },
    expect: (p) => expect(moves(p)).toEqual(['a-1:n1->n2']),
  },
  {
    name: 'terminal pods neither count nor move',
    input: { nodes: [node('n1'), node('n2')], pods: [wpod('done').app('j').on('n1').succeeded().build(), wpod('b-1').app('b').on('n2').build()] },
    expect: (p) => {
      expect(p.occupied).toBe(1);
      expect(p.moves).toEqual([]);
    },
  },
];

describe('planDefrag', () => {
  for (const c of cases) {
    it(c.name, () => {
      const plan = planDefrag(c.input, c.options);
      expect(replay(c.input, plan, c.options)).toEqual([]);
      c.expect(plan);
    });
  }

  it('gives the same plan whatever the order of the lists', () => {
    const input = cases[2]!.input;
    const reversed = { nodes: [...input.nodes].reverse(), pods: [...input.pods].reverse() };
    expect(planDefrag(reversed)).toEqual(planDefrag(input));
  });

  it('explains itself: the summary names freed, occupied and the bound', () => {
    const plan = planDefrag(cases[0]!.input);
    expect(plan.summary).toMatch(/^frees 1 of 3 occupied nodes with 1 evictions \(0 swaps\); at least 2 must stay/);
    expect(plan.moves[0]!.reason).toBe('default/a-1 (ReplicaSet a-rs) from n1 to n3: most allocated node it fits');
  });
});
