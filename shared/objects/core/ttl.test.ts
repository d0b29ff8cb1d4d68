import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { TtlRuleSchema, type TtlRule } from '../../policy/ttl-schema.js';
import { decideTtl, withHoldings, type TtlObject } from './ttl.js';

// TTL on any kind, through the pure core: each object expired, waiting, unreadable or protected,
// as the kube-janitor and Kyverno examples write their values.
const NOW = Date.parse('2026-06-01T12:00:00Z');
const HOUR = 3_600_000;
const NS = { group: '', version: 'v1', kind: 'Namespace' };
const DEPLOY = { group: 'apps', version: 'v1', kind: 'Deployment' };
const CM = { group: '', version: 'v1', kind: 'ConfigMap' };
const guard = { protectedNamespaces: ['kube-tidy', 'payments'], from: 'PROTECTED_NAMESPACES' };

const rule = (over: Record<string, unknown> = {}): TtlRule => TtlRuleSchema.parse({ name: 'r', kinds: [NS, DEPLOY, CM], ...over });

let n = 0;
function obj(
  gvk: typeof NS,
  name: string,
  o: { ns?: string; ageH?: number; labels?: Record<string, string>; annotations?: Record<string, string> } = {},
): TtlObject {
  n++;
  return {
    gvk,
    ...(o.ns ? { namespace: o.ns } : {}),
    name,
    uid: `uid-${name}-${n}`,
    resourceVersion: '1',
    creationTimestamp: new Date(NOW - (o.ageH ?? 3) * HOUR).toISOString(),
    ...(o.labels ? { labels: o.labels } : {}),
    ...(o.annotations ? { annotations: o.annotations } : {}),
  };
}

const outcome = (rules: TtlRule[], objects: TtlObject[]) => {
  const p = decideTtl(rules, objects, guard, NOW);
  return [
    ...p.decisions.map((d) => `${d.name}: expired`),
    ...p.eligible.map((e) => `${e.name}: waiting until ${new Date(e.at).toISOString()}`),
    ...p.kept.map((k) => `${k.name}: kept, ${k.reason}`),
  ];
};

describe('decideTtl', () => {
  it.each([
    {
      name: "kube-janitor's example: a namespace with janitor/ttl: 2h created 3h ago is expired",
      objects: [obj(NS, 'preview-1', { annotations: { 'janitor/ttl': '2h' } })],
      want: ['preview-1: expired'],
    },
    {
      name: 'janitor/ttl as a label is read too (an annotation beside it wins)',
      objects: [
        obj(NS, 'by-label', { labels: { 'janitor/ttl': '2h' } }),
        obj(NS, 'both', { labels: { 'janitor/ttl': '2h' }, annotations: { 'janitor/ttl': '4h' } }),
      ],
      want: ['by-label: expired', 'both: waiting until 2026-06-01T13:00:00.000Z'],
    },
    {
      name: 'janitor/expires: an absolute time past is expired, one ahead waits',
      objects: [
        obj(DEPLOY, 'gone', { ns: 'ci', annotations: { 'janitor/expires': '2026-06-01T11:59' } }),
        obj(DEPLOY, 'later', { ns: 'ci', annotations: { 'janitor/expires': '2026-06-02' } }),
      ],
      want: ['gone: expired', 'later: waiting until 2026-06-02T00:00:00.000Z'],
    },
    {
      name: "Kyverno's label: a duration from creation, and its own time layout",
      objects: [
        obj(CM, 'k-1h', { ns: 'ci', labels: { 'cleanup.kyverno.io/ttl': '1h' } }),
        obj(CM, 'k-time', { ns: 'ci', labels: { 'cleanup.kyverno.io/ttl': '2026-06-01T130000Z' } }),
      ],
      want: ['k-1h: expired', 'k-time: waiting until 2026-06-01T13:00:00.000Z'],
    },
    {
      name: 'janitor/ttl: forever never expires, and nothing at all is not considered',
      objects: [obj(NS, 'forever', { annotations: { 'janitor/ttl': 'forever' } }), obj(NS, 'plain')],
      want: [],
    },
    {
      name: 'an unreadable value is kept, said, and never guessed, even beside a readable expired one',
      objects: [
        obj(NS, 'typo', { annotations: { 'janitor/ttl': '2 hours' } }),
        obj(NS, 'mixed', { labels: { 'cleanup.kyverno.io/ttl': 'soon' }, annotations: { 'janitor/ttl': '1h' } }),
      ],
      want: [
        'typo: kept, unreadable TTL, kept (never guessed): annotation janitor/ttl: "2 hours" is not a TTL such as 60s, 5m, 8h, 7d or 2w (or forever)',
        'mixed: kept, unreadable TTL, kept (never guessed): label cleanup.kyverno.io/ttl: "soon" is neither a duration (5m, 4h, 1d) nor a time (2023-10-04T003000Z, 2023-10-04)',
      ],
    },
    {
      name: 'a protected namespace is never deleted whatever its label, nor anything in it',
      objects: [
        obj(NS, 'kube-system', { annotations: { 'janitor/ttl': '1h' } }),
        obj(NS, 'kube-node-lease', { annotations: { 'janitor/ttl': '1h' } }),
        obj(NS, 'kube-tidy', { annotations: { 'janitor/ttl': '1h' } }),
        obj(CM, 'cfg', { ns: 'payments', annotations: { 'janitor/ttl': '1h' } }),
      ],
      want: [
        'kube-system: kept, a protected namespace (always): never deleted, whatever its TTL',
        'kube-node-lease: kept, a protected namespace (always): never deleted, whatever its TTL',
        'kube-tidy: kept, a protected namespace (PROTECTED_NAMESPACES): never deleted, whatever its TTL',
        'cfg: kept, in a protected namespace (PROTECTED_NAMESPACES)',
      ],
    },
    {
      name: 'a kind the rule does not name is not read, whatever its label',
      objects: [obj({ group: 'batch', version: 'v1', kind: 'Job' }, 'job', { ns: 'ci', annotations: { 'janitor/ttl': '1h' } })],
      want: [],
    },
  ])('$name', ({ objects, want }) => {
    expect(outcome([rule()], objects)).toEqual(want);
  });

  it("kube-tidy's own namespace is kept and said as its own, with how the host knows it", () => {
    const own = { ...guard, own: { namespace: 'tidy-home', from: '--brakes-namespace' } };
    const p = decideTtl(
      [rule()],
      [obj(NS, 'tidy-home', { annotations: { 'janitor/ttl': '1h' } }), obj(CM, 'cfg', { ns: 'tidy-home', annotations: { 'janitor/ttl': '1h' } })],
      own,
      NOW,
    );
    expect(p.decisions).toEqual([]);
    expect(p.kept.map((k) => `${k.name}: ${k.reason}`)).toEqual([
      "tidy-home: a protected namespace (kube-tidy's own, --brakes-namespace): never deleted, whatever its TTL",
      "cfg: in a protected namespace (kube-tidy's own, --brakes-namespace)",
    ]);
  });

  it('sources narrow what is read: Kyverno only ignores the janitor keys', () => {
    const objects = [obj(NS, 'k', { labels: { 'cleanup.kyverno.io/ttl': '1h' } }), obj(NS, 'j', { annotations: { 'janitor/ttl': '1h' } })];
    expect(outcome([rule({ sources: ['cleanup.kyverno.io/ttl'] })], objects)).toEqual(['k: expired']);
  });

  it('namespaces and labelSelector scope it: a Namespace by its own name, a namespaced object by its namespace', () => {
    const r = rule({ namespaces: { include: ['preview-1', 'ci'] }, labelSelector: { matchLabels: { env: 'preview' } } });
    const objects = [
      obj(NS, 'preview-1', { labels: { env: 'preview', 'janitor/ttl': '1h' } }),
      obj(NS, 'preview-2', { labels: { env: 'preview', 'janitor/ttl': '1h' } }),
      obj(DEPLOY, 'web', { ns: 'ci', labels: { env: 'preview', 'janitor/ttl': '1h' } }),
      obj(DEPLOY, 'api', { ns: 'ci', labels: { env: 'prod', 'janitor/ttl': '1h' } }),
    ];
    expect(outcome([r], objects)).toEqual(['web: expired', 'preview-1: expired']);
  });

  it('a decision says why, the mode, the propagation (the object’s Kyverno annotation wins), and its apiVersion', () => {
    const p = decideTtl(
      [rule({ mode: 'delete' })],
      [
        obj(DEPLOY, 'web', { ns: 'ci', labels: { 'cleanup.kyverno.io/ttl': '1h' }, annotations: { 'cleanup.kyverno.io/propagation-policy': 'Orphan' } }),
        obj(NS, 'ns1', { annotations: { 'janitor/ttl': '2h' } }),
      ],
      guard,
      NOW,
    );
    expect(p.decisions.map((d) => [d.kind, d.apiVersion, d.namespace, d.name, d.mode, d.propagationPolicy, d.reason])).toEqual([
      [
        'Deployment',
        'apps/v1',
        'ci',
        'web',
        'delete',
        'Orphan',
        'r: expired at 2026-06-01T10:00:00.000Z, from label cleanup.kyverno.io/ttl (1h after creation)',
      ],
      ['Namespace', 'v1', 'ns1', 'ns1', 'delete', 'Background', 'r: expired at 2026-06-01T11:00:00.000Z, from annotation janitor/ttl (2h after creation)'],
    ]);
    expect(withHoldings(p.decisions[1]!, { pods: 3, jobs: 1, claims: 2 }).reason).toMatch(/; it holds 3 pods, 1 Jobs and 2 PersistentVolumeClaims$/);
    expect(withHoldings(p.decisions[0]!, { pods: 3, jobs: 1, claims: 2 })).toBe(p.decisions[0]);
  });
});

describe('decideTtl over any value', () => {
  const CREATED = NOW - 5 * HOUR;
  const durations = fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.constantFrom('s', 'm', 'h', 'd', 'w')).map(([k, u]) => `${k}${u}`);
  const one = (annotations: Record<string, string>, labels: Record<string, string>, now: number) => {
    const o: TtlObject = {
      gvk: CM,
      namespace: 'ci',
      name: 'x',
      uid: 'u',
      resourceVersion: '1',
      creationTimestamp: new Date(CREATED).toISOString(),
      annotations,
      labels,
    };
    return decideTtl([rule()], [o], guard, now);
  };

  test.prop([durations, fc.integer({ min: CREATED - 100 * HOUR, max: CREATED + 100_000 * HOUR })])(
    'a parsed duration and its expiry are never before creation: nothing expires before its own creation time',
    (ttl, now) => {
      const p = one({ 'janitor/ttl': ttl }, { 'cleanup.kyverno.io/ttl': ttl }, now);
      for (const d of p.decisions) expect(d.since).toBeGreaterThanOrEqual(CREATED);
      for (const e of p.eligible) expect(e.at).toBeGreaterThanOrEqual(CREATED);
      if (now < CREATED) expect(p.decisions).toEqual([]);
    },
  );

  // Garbage: any text around a character no convention reads (no duration, date or `forever` holds a '?').
  const garbage = fc.tuple(fc.string({ unit: fc.constantFrom(...'0123456789dwhms.T:Z- ') }), fc.string()).map(([a, b]) => `${a}?${b}`);
  test.prop([garbage, fc.constantFrom('janitor/ttl', 'janitor/expires', 'cleanup.kyverno.io/ttl'), fc.integer({ min: 0, max: 1e13 })])(
    'garbage never expires: it is kept as unreadable, at any time, whichever key holds it',
    (value, key, later) => {
      const p = one({ [key]: value }, { [key]: value }, NOW + later);
      expect(p.decisions).toEqual([]);
      expect(p.eligible).toEqual([]);
      expect(p.kept.map((k) => k.reason)).toEqual([expect.stringMatching(/^unreadable TTL, kept \(never guessed\): /)]);
    },
  );
});
