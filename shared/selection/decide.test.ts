import { describe, expect, it } from 'vitest';
import { decide, newSession } from './decide.js';
import { loadPolicy } from '../policy/load.js';
import { NOW, pod } from '../../test/fixtures/pods.js';
import { policyDoc, policyOf } from '../../test/fixtures/policy.js';

const everyFailed = [{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 0 } }];

describe('decide', () => {
  it('acts on Succeeded and Failed pods with delete and on the others with evict', () => {
    const policy = policyOf([{ name: 'PodLifeTime', args: { maxPodLifeTimeSeconds: 60 } }]);
    const plan = decide(
      policy,
      { pods: [pod('done').succeeded().build(), pod('bad').failed().build(), pod('live').build(), pod('wait').phase('Pending').build()] },
      NOW,
    );
    expect(plan.decisions.map((d) => [d.name, d.action])).toEqual([
      ['done', 'delete'],
      ['bad', 'delete'],
      ['live', 'evict'],
      ['wait', 'evict'],
    ]);
  });

  it('carries namespace, uid, node, profile and the pod resourceVersion in each decision', () => {
    const p = pod('x').inNamespace('ml').onNode('gpu-3').failed().build();
    const [d] = decide(policyOf(everyFailed), { pods: [p] }, NOW).decisions;
    expect(d).toMatchObject({
      namespace: 'ml',
      name: 'x',
      uid: p.metadata.uid,
      node: 'gpu-3',
      profile: 'test',
      strategy: 'RemoveFailedPods',
      resourceVersion: p.metadata.resourceVersion,
    });
  });

  it('decides a pod once even when two strategies select it; the first strategy wins', () => {
    const policy = policyOf([{ name: 'PodLifeTime', args: { states: ['Failed'] } }, ...everyFailed]);
    const plan = decide(policy, { pods: [pod('twice').failed().build()] }, NOW);
    expect(plan.decisions.map((d) => d.strategy)).toEqual(['PodLifeTime']);
  });

  it('runs profiles in order, each with its own evictor', () => {
    const doc = policyDoc(everyFailed);
    (doc.profiles as unknown[]).push({
      name: 'second',
      pluginConfig: [
        { name: 'DefaultEvictor', args: { podProtections: { defaultDisabled: ['FailedBarePods'] } } },
        { name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 0 } },
      ],
      plugins: { deschedule: { enabled: ['RemoveFailedPods'] } },
    });
    const plan = decide(loadPolicy(doc).policy, { pods: [pod('owned').failed().build(), pod('bare').bare().failed().build()] }, NOW);
    expect(plan.decisions.map((d) => [d.name, d.profile])).toEqual([
      ['owned', 'test'],
      ['bare', 'second'],
    ]);
    expect(plan.kept.map((k) => [k.name, k.profile])).toEqual([['bare', 'test']]);
  });

  it.each([
    { limit: { maxNoOfPodsToEvictTotal: 2 }, want: ['a1', 'a2'], kept: 'limit maxNoOfPodsToEvictTotal reached' },
    { limit: { maxNoOfPodsToEvictPerNamespace: 1 }, want: ['a1', 'b1'], kept: 'limit maxNoOfPodsToEvictPerNamespace reached' },
    { limit: { maxNoOfPodsToEvictPerNode: 1 }, want: ['a1', 'a2'], kept: 'limit maxNoOfPodsToEvictPerNode reached' },
    { limit: { maxNoOfPodsToEvictTotal: 0 }, want: [], kept: 'limit maxNoOfPodsToEvictTotal reached' },
  ])('applies $limit oldest first and says which limit kept the rest', ({ limit, want, kept }) => {
    // a1/a2 in namespace a on nodes n1/n2, b1/b2 in namespace b on nodes n1/n2; older first by name.
    const pods = [
      pod('b2').inNamespace('b').onNode('n2').age(1000).failed(),
      pod('a1').inNamespace('a').onNode('n1').age(4000).failed(),
      pod('b1').inNamespace('b').onNode('n1').age(2000).failed(),
      pod('a2').inNamespace('a').onNode('n2').age(3000).failed(),
    ].map((p) => p.build());
    const plan = decide(policyOf(everyFailed, { top: limit }), { pods }, NOW);
    expect(plan.decisions.map((d) => d.name)).toEqual(want);
    expect(new Set(plan.kept.map((k) => k.reason))).toEqual(new Set([kept]));
  });

  it('counts limits across strategies and profiles of one call', () => {
    const policy = policyOf([{ name: 'PodLifeTime', args: { states: ['Succeeded'] } }, ...everyFailed], { top: { maxNoOfPodsToEvictTotal: 1 } });
    const plan = decide(policy, { pods: [pod('ok').succeeded().build(), pod('bad').failed().build()] }, NOW);
    expect(plan.decisions.map((d) => d.name)).toEqual(['ok']);
  });

  it('is pure: the same input gives the same plan and the input is not changed', () => {
    const pods = [pod('a').failed().build(), pod('b').succeeded().build()];
    const before = structuredClone(pods);
    const policy = policyOf(everyFailed);
    expect(decide(policy, { pods }, NOW)).toEqual(decide(policy, { pods }, NOW));
    expect(pods).toEqual(before);
  });

  it('accepts the Date timestamps of client-node typed objects as well as strings', () => {
    const p = pod('typed').age(7200).failed().build();
    p.metadata.creationTimestamp = new Date(p.metadata.creationTimestamp as string);
    const plan = decide(policyOf([{ name: 'PodLifeTime', args: { maxPodLifeTimeSeconds: 3600 } }]), { pods: [p] }, NOW);
    expect(plan.decisions.map((d) => d.name)).toEqual(['typed']);
  });
});

describe('decide with context pods', () => {
  it('judges only the given pods while counting siblings from the context', () => {
    const policy = policyOf(everyFailed, { evictor: { minReplicas: 2 }, top: { maxNoOfPodsToEvictTotal: 1 } });
    const sibling = pod('sibling').failed().ownedBy('Job', 'j').age(9999).build();
    const target = pod('target').failed().ownedBy('Job', 'j').build();
    // Alone, the owner has one pod (kept by minReplicas); with context it has two, and the
    // older sibling does not use up the total limit because it is not judged.
    expect(decide(policy, { pods: [target] }, NOW).decisions).toEqual([]);
    expect(decide(policy, { pods: [target], contextPods: [sibling, target] }, NOW).decisions.map((d) => d.name)).toEqual(['target']);
  });
});

describe('decide across pages with a session', () => {
  it('decides a pod once even when a later page lists it again, and limits span the pages', () => {
    const policy = policyOf(everyFailed, { top: { maxNoOfPodsToEvictTotal: 2 } });
    const session = newSession(policy);
    const a = pod('a').failed().build();
    const b = pod('b').failed().build();
    const c = pod('c').failed().build();
    const first = decide(policy, { pods: [a, b] }, NOW, { session });
    const second = decide(policy, { pods: [b, c] }, NOW, { session });
    expect(first.decisions.map((d) => d.name)).toEqual(['a', 'b']);
    expect(second.decisions).toEqual([]);
    expect(second.kept.map((k) => [k.name, k.reason])).toEqual([['c', 'limit maxNoOfPodsToEvictTotal reached']]);
  });
});
