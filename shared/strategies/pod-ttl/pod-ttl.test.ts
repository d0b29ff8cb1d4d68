import { describe, expect, it } from 'vitest';
import { decide } from '../../selection/decide.js';
import { phaseFieldSelector } from '../../selection/field-selector.js';
import { loadPolicy } from '../../policy/load.js';
import { PolicyError } from '../../policy/errors.js';
import { NOW, pod, type PodBuilder } from '../../../test/fixtures/pods.js';
import { policyDoc, policyOf } from '../../../test/fixtures/policy.js';
import { compilePodTTL } from './pod-ttl.js';
import { PodTTLArgsSchema } from './schema.js';

// PodTTL through the whole core, as a user of the strategy sees it. The fixture's pods are
// two hours old and owned by a ReplicaSet, so the default DefaultEvictor lets them through.

const KYVERNO = 'cleanup.kyverno.io/ttl';
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
/** Kyverno's layout for an absolute time: no colons, which a label value cannot hold. */
const kyvernoTime = (ms: number) =>
  iso(ms)
    .replace(/:/g, '')
    .replace(/\.\d{3}Z$/, 'Z');

function plan(args: Record<string, unknown>, pods: PodBuilder[], opts: { eligibleAt?: boolean; evictor?: Record<string, unknown> } = {}) {
  return decide(policyOf([{ name: 'PodTTL', args }], { evictor: opts.evictor }), { pods: pods.map((p) => p.build()) }, NOW, { eligibleAt: opts.eligibleAt });
}
const selected = (args: Record<string, unknown>, pods: PodBuilder[]) => plan(args, pods).decisions.map((d) => d.name);

describe('PodTTL', () => {
  it.each([
    {
      name: 'a Kyverno label with a past time is selected, a future one is not',
      args: {},
      pods: [pod('past').labels({ [KYVERNO]: kyvernoTime(NOW - 1000) }), pod('future').labels({ [KYVERNO]: kyvernoTime(NOW + 1000) })],
      want: ['past'],
    },
    {
      name: 'a Kyverno date is midnight UTC',
      args: {},
      pods: [
        pod('yesterday').labels({ [KYVERNO]: '2026-05-31' }),
        pod('today').labels({ [KYVERNO]: '2026-06-01' }),
        pod('tomorrow').labels({ [KYVERNO]: '2026-06-02' }),
      ],
      want: ['yesterday', 'today'],
    },
    {
      name: 'durations count from creation (the pods are 2h old)',
      args: {},
      pods: [
        pod('k-1h').labels({ [KYVERNO]: '1h' }),
        pod('k-1d').labels({ [KYVERNO]: '1d' }),
        pod('j-90m').annotate('janitor/ttl', '90m'),
        pod('j-3h').annotate('janitor/ttl', '3h'),
      ],
      want: ['k-1h', 'j-90m'],
    },
    {
      name: 'a janitor/expires time in the past is selected',
      args: {},
      pods: [pod('gone').annotate('janitor/expires', '2026-06-01T11:59'), pod('later').annotate('janitor/expires', '2026-06-01T12:00:01Z')],
      want: ['gone'],
    },
    {
      name: 'janitor/ttl: forever never expires',
      args: {},
      pods: [pod('kept').annotate('janitor/ttl', 'forever')],
      want: [],
    },
    {
      name: 'sources narrow what is read: kyverno only ignores the janitor annotations',
      args: { sources: ['kyverno'] },
      pods: [pod('k').labels({ [KYVERNO]: '1h' }), pod('j').annotate('janitor/ttl', '1h')],
      want: ['k'],
    },
    {
      name: 'janitor only ignores the Kyverno label',
      args: { sources: ['janitor'] },
      pods: [pod('k').labels({ [KYVERNO]: '1h' }), pod('j').annotate('janitor/ttl', '1h')],
      want: ['j'],
    },
    {
      name: 'a Kyverno value written as an annotation (it is a label) is not read',
      args: {},
      pods: [pod('annotated').annotate(KYVERNO, '1h')],
      want: [],
    },
    {
      name: 'with several values, the earliest decides',
      args: {},
      pods: [
        pod('both')
          .labels({ [KYVERNO]: '3h' })
          .annotate('janitor/ttl', '1h'),
      ],
      want: ['both'],
    },
    {
      name: 'a malformed value keeps the pod, even next to a readable expired one',
      args: {},
      pods: [
        pod('bad').labels({ [KYVERNO]: 'soon' }),
        pod('mixed')
          .labels({ [KYVERNO]: 'soon' })
          .annotate('janitor/ttl', '1h'),
      ],
      want: [],
    },
    {
      name: 'namespaces and labelSelector scope it as in every strategy',
      args: { namespaces: { include: ['ci'] }, labelSelector: { matchLabels: { app: 'preview' } } },
      pods: [
        pod('in')
          .inNamespace('ci')
          .labels({ app: 'preview', [KYVERNO]: '1h' }),
        pod('other-ns').labels({ app: 'preview', [KYVERNO]: '1h' }),
        pod('other-app')
          .inNamespace('ci')
          .labels({ app: 'web', [KYVERNO]: '1h' }),
      ],
      want: ['in'],
    },
    {
      name: 'the earliest expiry goes first',
      args: {},
      pods: [
        pod('mid').labels({ [KYVERNO]: kyvernoTime(NOW - 2 * HOUR) }),
        pod('late').annotate('janitor/expires', '2026-06-01T11:00'),
        pod('early').annotate('janitor/expires', '2026-06-01'),
      ],
      want: ['early', 'mid', 'late'],
    },
  ])('$name', ({ args, pods, want }) => {
    expect(selected(args, pods)).toEqual(want);
  });

  it('deletes a terminal pod and evicts a running one (so its PodDisruptionBudget holds), saying why', () => {
    const p = plan({}, [
      pod('done')
        .failed()
        .labels({ [KYVERNO]: '2026-06-01T110000Z' }),
      pod('busy').annotate('janitor/ttl', '1h'),
    ]);
    expect(p.decisions.map((d) => [d.name, d.action, d.reason])).toEqual([
      ['done', 'delete', 'PodTTL: expired at 2026-06-01T11:00:00.000Z, from label cleanup.kyverno.io/ttl (at 2026-06-01T110000Z)'],
      ['busy', 'evict', 'PodTTL: expired at 2026-06-01T11:00:00.000Z, from annotation janitor/ttl (1h after creation)'],
    ]);
  });

  it('passes the same gates as every strategy: protected namespaces and the profile DefaultEvictor', () => {
    const p = plan({}, [
      pod('system')
        .inNamespace('kube-system')
        .labels({ [KYVERNO]: '1h' }),
      pod('bare')
        .bare()
        .labels({ [KYVERNO]: '1h' }),
    ]);
    expect(p.decisions).toEqual([]);
    expect(p.kept.map((k) => [k.name, k.reason])).toEqual([
      ['system', 'namespace kube-system is protected'],
      ['bare', 'pod has no owner (FailedBarePods protection)'],
    ]);
  });

  it('says a pod with a TTL ahead becomes eligible at its expiry, and nothing for one without', () => {
    const expiry = NOW + 90_000;
    const p = plan({}, [pod('soon').labels({ [KYVERNO]: kyvernoTime(expiry) }), pod('plain'), pod('bad').labels({ [KYVERNO]: 'soon' })], { eligibleAt: true });
    expect(p.eligible).toEqual([expect.objectContaining({ name: 'soon', strategy: 'PodTTL', at: expiry })]);
  });

  it('reports a pod with an unreadable value as kept, with what is wrong, and never removes it', () => {
    const p = plan({}, [
      pod('bad').labels({ [KYVERNO]: 'soon' }),
      pod('mixed')
        .labels({ [KYVERNO]: 'soon' })
        .annotate('janitor/ttl', '1h'),
    ]);
    expect(p.decisions).toEqual([]);
    expect(p.kept.map((k) => [k.name, k.strategy, k.reason])).toEqual([
      [
        'bad',
        'PodTTL',
        'unreadable TTL, never removed by it: label cleanup.kyverno.io/ttl: "soon" is neither a duration (5m, 4h, 1d) nor a time (2023-10-04T003000Z, 2023-10-04)',
      ],
      [
        'mixed',
        'PodTTL',
        'unreadable TTL, never removed by it: label cleanup.kyverno.io/ttl: "soon" is neither a duration (5m, 4h, 1d) nor a time (2023-10-04T003000Z, 2023-10-04)',
      ],
    ]);
  });

  it('says why a pod with an unreadable value is kept (for the core to report), and only for pods in its scope', () => {
    const m = compilePodTTL(PodTTLArgsSchema.parse({ namespaces: { include: ['ci'] } }));
    const bad = pod('bad')
      .inNamespace('ci')
      .labels({ [KYVERNO]: 'next week' })
      .annotate('janitor/ttl', '2 days')
      .build();
    expect(m.matches(bad, NOW)).toBe(false);
    expect(m.readyAt(bad, NOW)).toBeUndefined();
    expect(m.keptBecause(bad, NOW)).toBe(
      'unreadable TTL, never removed by it: label cleanup.kyverno.io/ttl: "next week" is neither a duration (5m, 4h, 1d) nor a time (2023-10-04T003000Z, 2023-10-04); ' +
        'annotation janitor/ttl: "2 days" is not a TTL such as 60s, 5m, 8h, 7d or 2w (or forever)',
    );
    expect(
      m.keptBecause(
        pod('elsewhere')
          .labels({ [KYVERNO]: 'next week' })
          .build(),
        NOW,
      ),
    ).toBeUndefined();
    expect(
      m.keptBecause(
        pod('fine')
          .inNamespace('ci')
          .labels({ [KYVERNO]: '1h' })
          .build(),
        NOW,
      ),
    ).toBeUndefined();
  });
});

describe('PodTTL in a policy', () => {
  const issues = (raw: unknown) => {
    try {
      loadPolicy(raw);
      return [];
    } catch (e) {
      return (e as PolicyError).issues.map((i) => `${i.path}: ${i.message}`);
    }
  };

  it('runs on its defaults without a pluginConfig: both sources', () => {
    const raw = policyDoc([{ name: 'PodTTL' }]);
    (raw.profiles as { pluginConfig: unknown[] }[])[0]!.pluginConfig = [];
    expect(loadPolicy(raw).policy.profiles[0]?.strategies).toEqual([{ name: 'PodTTL', args: { sources: ['kyverno', 'janitor'] } }]);
  });

  it('refuses an unknown source, a repeated one and an unknown argument, each with its field path', () => {
    expect(issues(policyDoc([{ name: 'PodTTL', args: { sources: ['kyverno', 'kyverno'] } }]))).toEqual([
      'profiles[0].pluginConfig[0].args.sources: a source is listed twice',
    ]);
    expect(issues(policyDoc([{ name: 'PodTTL', args: { sources: ['argo'], ttl: '1h' } }]))).toEqual([
      expect.stringMatching(/^profiles\[0\]\.pluginConfig\[0\]\.args\.sources\[0\]: /),
      expect.stringMatching(/^profiles\[0\]\.pluginConfig\[0\]\.args: .*ttl/),
    ]);
  });

  it('reads every phase: a TTL is not about the phase', () => {
    expect(phaseFieldSelector(policyOf([{ name: 'PodTTL' }]))).toBeUndefined();
  });
});
