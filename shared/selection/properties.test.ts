import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { AcrossPages } from './across-pages.js';
import { decide } from './decide.js';
import { indexSnapshot } from './snapshot.js';
import type { Pod } from '../model/objects.js';
import { effectiveProtections } from '../evictor/schema.js';
import { policyOf } from '../../test/fixtures/policy.js';
import { NOW } from '../../test/fixtures/pods.js';
import { POD_LIFETIME_STATES } from '../strategies/pod-lifetime/index.js';

// Properties over random pods and random policies: what must hold whatever the input.

const PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const;
const REASONS = ['Error', 'OOMKilled', 'Completed', 'CrashLoopBackOff', 'ImagePullBackOff', 'ContainerCreating'] as const;

const arbPod = fc
  .record({
    ns: fc.constantFrom('default', 'ml', 'kube-system', 'batch'),
    node: fc.constantFrom('n1', 'n2', 'n3', undefined),
    phase: fc.constantFrom(...PHASES),
    ageSeconds: fc.integer({ min: 0, max: 10 * 86400 }),
    exitCode: fc.option(fc.integer({ min: 0, max: 255 }), { nil: undefined }),
    waiting: fc.option(fc.constantFrom(...REASONS), { nil: undefined }),
    terminatedReason: fc.constantFrom(...REASONS),
    restarts: fc.integer({ min: 0, max: 50 }),
    owner: fc.constantFrom('ReplicaSet', 'Job', 'DaemonSet', 'StatefulSet', undefined),
    terminating: fc.boolean(),
    mirror: fc.boolean(),
    critical: fc.boolean(),
    emptyDir: fc.boolean(),
    evictAnnotation: fc.boolean(),
  })
  .map((r): Pod => {
    const annotations: Record<string, string> = {};
    if (r.mirror) annotations['kubernetes.io/config.mirror'] = 'x';
    if (r.evictAnnotation) annotations['descheduler.alpha.kubernetes.io/evict'] = '';
    return {
      metadata: {
        name: 'p',
        namespace: r.ns,
        uid: '',
        creationTimestamp: new Date(NOW - r.ageSeconds * 1000).toISOString(),
        deletionTimestamp: r.terminating ? new Date(NOW).toISOString() : undefined,
        annotations,
        ownerReferences: r.owner ? [{ kind: r.owner, name: 'o', uid: `o-${r.owner}` }] : [],
      },
      spec: { nodeName: r.node, priority: r.critical ? 2_000_000_000 : 0, volumes: r.emptyDir ? [{ name: 'v', emptyDir: {} }] : [] },
      status: {
        phase: r.phase,
        containerStatuses: [
          {
            name: 'c',
            restartCount: r.restarts,
            state:
              r.exitCode !== undefined
                ? { terminated: { exitCode: r.exitCode, reason: r.terminatedReason } }
                : r.waiting
                  ? { waiting: { reason: r.waiting } }
                  : { running: {} },
          },
        ],
      },
    };
  });

const arbPods = fc.array(arbPod, { maxLength: 40 }).map((pods) => pods.map((p, i) => ({ ...p, metadata: { ...p.metadata, name: `p${i}`, uid: `u${i}` } })));

const arbStrategies = fc.uniqueArray(
  fc.oneof(
    fc.record({
      name: fc.constant('PodLifeTime'),
      args: fc.record({ states: fc.uniqueArray(fc.constantFrom(...POD_LIFETIME_STATES), { minLength: 1, maxLength: 4 }) }),
    }),
    fc.record({ name: fc.constant('PodLifeTime'), args: fc.record({ maxPodLifeTimeSeconds: fc.integer({ min: 0, max: 5 * 86400 }) }) }),
    fc.record({ name: fc.constant('RemoveFailedPods'), args: fc.record({ minPodLifetimeSeconds: fc.integer({ min: 0, max: 86400 }) }) }),
    fc.record({ name: fc.constant('RemovePodsHavingTooManyRestarts'), args: fc.record({ podRestartThreshold: fc.integer({ min: 1, max: 40 }) }) }),
  ),
  { minLength: 1, maxLength: 3, selector: (s) => s.name },
);

const arbEvictor = fc.record({
  podProtections: fc.record({
    defaultDisabled: fc.uniqueArray(fc.constantFrom('PodsWithLocalStorage', 'SystemCriticalPods', 'FailedBarePods', 'DaemonSetPods'), { maxLength: 4 }),
  }),
});

describe('properties of decide', () => {
  test.prop([arbPods, arbStrategies, arbEvictor])('a pod the gate protects is never selected, whatever the policy', (pods, strategies, evictor) => {
    const policy = policyOf(strategies, { evictor });
    const protections = effectiveProtections(policy.profiles[0]!.evictor);
    const byUid = new Map(pods.map((p) => [p.metadata.uid, p]));
    for (const d of decide(policy, { pods }, NOW).decisions) {
      const p = byUid.get(d.uid)!;
      const a = p.metadata.annotations ?? {};
      // Never, not even with the evict annotation:
      expect(p.metadata.deletionTimestamp).toBeUndefined();
      expect(a['kubernetes.io/config.mirror']).toBeUndefined();
      expect(p.metadata.namespace).not.toBe('kube-system');
      if (a['descheduler.alpha.kubernetes.io/evict'] !== undefined) continue;
      const owners = p.metadata.ownerReferences ?? [];
      if (protections.has('DaemonSetPods')) expect(owners.some((o) => o.kind === 'DaemonSet')).toBe(false);
      if (protections.has('SystemCriticalPods')) expect(p.spec?.priority).toBeLessThan(2_000_000_000);
      if (protections.has('PodsWithLocalStorage')) expect(p.spec?.volumes ?? []).toEqual([]);
      if (owners.length === 0) {
        expect(protections.has('FailedBarePods')).toBe(false);
        expect(p.status?.phase).toBe('Failed');
      }
    }
  });

  const selectedUids = (pods: Pod[], args: Record<string, unknown>) =>
    new Set(
      decide(
        policyOf([{ name: 'PodLifeTime', args }], {
          evictor: { evictDaemonSetPods: true, evictSystemCriticalPods: true, evictLocalStoragePods: true, evictFailedBarePods: true },
        }),
        { pods },
        NOW,
        { protectedNamespaces: [] },
      ).decisions.map((d) => d.uid),
    );

  const arbStates = fc.uniqueArray(fc.constantFrom(...POD_LIFETIME_STATES), { minLength: 1, maxLength: 5 });
  const arbCodes = fc.uniqueArray(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 5 });

  test.prop([arbPods, arbStates, arbCodes, fc.integer({ min: 0, max: 5 * 86400 })])(
    'categories are ANDed: selecting by several is the intersection of selecting by each',
    (pods, states, exitCodes, age) => {
      const both = selectedUids(pods, { states, exitCodes, maxPodLifeTimeSeconds: age });
      const s = selectedUids(pods, { states });
      const e = selectedUids(pods, { exitCodes });
      const a = selectedUids(pods, { maxPodLifeTimeSeconds: age });
      expect(both).toEqual(new Set([...s].filter((u) => e.has(u) && a.has(u))));
    },
  );

  test.prop([arbPods, arbStates, arbStates])('entries inside a category are ORed: selecting by a union is the union of selections', (pods, s1, s2) => {
    const union = selectedUids(pods, { states: [...new Set([...s1, ...s2])] });
    expect(union).toEqual(new Set([...selectedUids(pods, { states: s1 }), ...selectedUids(pods, { states: s2 })]));
  });

  test.prop([
    arbPods,
    arbStrategies,
    fc.record({
      maxNoOfPodsToEvictPerNode: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
      maxNoOfPodsToEvictPerNamespace: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
      maxNoOfPodsToEvictTotal: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
    }),
  ])('limits are never exceeded and no pod is decided twice', (pods, strategies, limits) => {
    const top = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
    const decisions = decide(policyOf(strategies, { top }), { pods }, NOW).decisions;
    const count = (key: (d: (typeof decisions)[number]) => string | undefined) => {
      const m = new Map<string, number>();
      for (const d of decisions) {
        const k = key(d);
        if (k) m.set(k, (m.get(k) ?? 0) + 1);
      }
      return Math.max(0, ...m.values());
    };
    if (limits.maxNoOfPodsToEvictTotal !== undefined) expect(decisions.length).toBeLessThanOrEqual(limits.maxNoOfPodsToEvictTotal);
    if (limits.maxNoOfPodsToEvictPerNode !== undefined) expect(count((d) => d.node)).toBeLessThanOrEqual(limits.maxNoOfPodsToEvictPerNode);
    if (limits.maxNoOfPodsToEvictPerNamespace !== undefined) expect(count((d) => d.namespace)).toBeLessThanOrEqual(limits.maxNoOfPodsToEvictPerNamespace);
    expect(new Set(decisions.map((d) => d.uid)).size).toBe(decisions.length);
  });

  const arbLimits = fc.record({
    maxNoOfPodsToEvictPerNode: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
    maxNoOfPodsToEvictPerNamespace: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
    maxNoOfPodsToEvictTotal: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
  });

  // Most random pods are protected (terminating, mirror, critical, ...); here most must be
  // selectable, or the order and the limits are seldom put to the test.
  const arbSelectable = arbPods.map((pods) => pods.map((p) => ({ ...p, metadata: { ...p.metadata, deletionTimestamp: undefined, annotations: {} } })));
  const permissive = { evictDaemonSetPods: true, evictSystemCriticalPods: true, evictLocalStoragePods: true, evictFailedBarePods: true };

  test.prop([arbSelectable, arbStrategies, arbLimits, fc.integer({ min: 1, max: 7 })], { numRuns: 300 })(
    'deciding page by page across a pass gives the decisions, in the order, of one decide over every pod',
    (pods, strategies, limits, pageSize) => {
      const top = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
      const policy = policyOf(strategies, { top, evictor: permissive });
      const whole = decide(policy, { pods }, NOW);
      const pass = new AcrossPages(policy);
      const pageKept: string[] = [];
      for (let i = 0; i < pods.length; i += pageSize) {
        const page = pods.slice(i, i + pageSize);
        const plan = decide(policy, { pods: page }, NOW, { session: pass.session });
        pageKept.push(...plan.kept.map((k) => k.uid));
        pass.add(plan);
      }
      const done = pass.finish();
      expect(done.decisions).toEqual(whole.decisions);
      // Held back by the gate (on a page) or by a limit (at the end): the same pods.
      expect(new Set([...pageKept, ...done.kept.map((k) => k.uid)])).toEqual(new Set(whole.kept.map((k) => k.uid)));
    },
  );

  test.prop([arbSelectable, arbStrategies, fc.integer({ min: 1, max: 7 })], { numRuns: 200 })(
    'with every pod as context, one index built for the whole pass decides as one decide over every pod (minReplicas counts siblings)',
    (pods, strategies, pageSize) => {
      const policy = policyOf(strategies, { evictor: { ...permissive, minReplicas: 2 } });
      const whole = decide(policy, { pods }, NOW);
      const index = indexSnapshot({ pods: [], contextPods: pods });
      const pass = new AcrossPages(policy);
      for (let i = 0; i < pods.length; i += pageSize)
        pass.add(decide(policy, { pods: pods.slice(i, i + pageSize), contextPods: pods }, NOW, { session: pass.session, index }));
      expect(pass.finish().decisions).toEqual(whole.decisions);
    },
  );
});
