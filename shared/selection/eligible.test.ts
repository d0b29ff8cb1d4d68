import { describe, expect, it } from 'vitest';
import { decide } from './decide.js';
import { NOW, pod, type PodBuilder } from '../../test/fixtures/pods.js';
import { policyOf, type PluginSpec } from '../../test/fixtures/policy.js';

// The event path's honesty about time: for a pod no strategy takes now, when time alone
// would bring it in (what podTerminated answers as eligibleAt).

type Row = { name: string; plugins: PluginSpec[]; evictor?: Record<string, unknown>; pod: PodBuilder; at: number | null };

describe('eligibleAt', () => {
  it.each<Row>([
    {
      name: 'a Failed pod younger than minPodLifetimeSeconds is eligible when it reaches it',
      plugins: [{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 600 } }],
      pod: pod('young').age(100).failed(),
      at: NOW + 500_000,
    },
    {
      name: 'PodLifeTime takes a pod one second after maxPodLifeTimeSeconds (age > max, whole seconds)',
      plugins: [{ name: 'PodLifeTime', args: { maxPodLifeTimeSeconds: 3600 } }],
      pod: pod('running').age(3000),
      at: NOW + 601_000,
    },
    {
      name: 'a condition threshold counts from the transition',
      plugins: [{ name: 'PodLifeTime', args: { conditions: [{ type: 'Ready', status: 'False', minTimeSinceLastTransitionSeconds: 300 }] } }],
      pod: pod('unready').condition('Ready', 'False', { secondsAgo: 100 }),
      at: NOW + 200_000,
    },
    {
      name: 'DefaultEvictor minPodAge delays a pod the strategy selects now',
      plugins: [{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 0 } }],
      evictor: { minPodAge: '1h' },
      pod: pod('fresh').age(600).failed(),
      at: NOW + 3000_000,
    },
    {
      name: 'a pod no rule will ever select on time alone has none',
      plugins: [{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 600 } }],
      pod: pod('healthy').age(100),
      at: null,
    },
    {
      name: 'a pod a protection keeps has none, however long one waits',
      plugins: [{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 600 } }],
      pod: pod('bare').bare().age(100),
      at: null,
    },
    {
      name: 'a pod selected now has none: it is decided',
      plugins: [{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 0 } }],
      pod: pod('now').age(0).failed(),
      at: null,
    },
  ])('$name', ({ plugins, evictor, pod: p, at }) => {
    const plan = decide(policyOf(plugins, { evictor }), { pods: [p.build()] }, NOW, { eligibleAt: true });
    expect(plan.eligible?.[0]?.at ?? null).toBe(at);
  });

  it('takes the earliest strategy and names it', () => {
    const policy = policyOf([
      { name: 'PodLifeTime', args: { maxPodLifeTimeSeconds: 7200 } },
      { name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 600 } },
    ]);
    const plan = decide(policy, { pods: [pod('f').age(100).failed().build()] }, NOW, { eligibleAt: true });
    expect(plan.eligible).toMatchObject([{ name: 'f', strategy: 'RemoveFailedPods', at: NOW + 500_000 }]);
  });

  it('is left out unless asked for', () => {
    const plan = decide(policyOf([{ name: 'RemoveFailedPods' }]), { pods: [pod('f').age(100).failed().build()] }, NOW);
    expect(plan.eligible).toBeUndefined();
  });
});
