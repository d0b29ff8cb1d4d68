import { describe, expect, it } from 'vitest';
import { policyIssues } from '../../test/fixtures/policy.js';
import { loadPolicy } from './load.js';

// kubeTidy.ttl as a person writes it: what loads, with which defaults, and every mistake said at
// its field path (the CLI's `policy check` exits 2 with these lines).
const envelope = { apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy' };
const ns = { version: 'v1', kind: 'Namespace' };

const issuesOf = (raw: unknown): string[] => policyIssues(raw).map((i) => `${i.path}: ${i.message}`);

describe('kubeTidy.ttl in the policy', () => {
  it('a policy of ttl rules only loads: report mode, all three sources, Background, the core group by default', () => {
    const { policy } = loadPolicy({
      ...envelope,
      kubeTidy: { ttl: [{ name: 'previews', kinds: [ns, { group: 'apps', version: 'v1', kind: 'Deployment' }] }] },
    });
    expect(policy.profiles).toEqual([]);
    expect(policy.ttl).toEqual([
      {
        name: 'previews',
        kinds: [
          { group: '', version: 'v1', kind: 'Namespace' },
          { group: 'apps', version: 'v1', kind: 'Deployment' },
        ],
        sources: ['cleanup.kyverno.io/ttl', 'janitor/ttl', 'janitor/expires'],
        mode: 'report',
        propagationPolicy: 'Background',
      },
    ]);
  });

  it.each([
    { name: 'no kinds', rule: { name: 'r', kinds: [] }, want: ['kubeTidy.ttl[0].kinds: Too small'] },
    {
      name: 'a kind in lower case',
      rule: { name: 'r', kinds: [{ version: 'v1', kind: 'namespace' }] },
      want: ['kubeTidy.ttl[0].kinds[0].kind: a Kind as the API server'],
    },
    {
      name: 'a version that is not one',
      rule: { name: 'r', kinds: [{ group: 'apps', version: '1', kind: 'Deployment' }] },
      want: ['kubeTidy.ttl[0].kinds[0].version: a Kubernetes API version'],
    },
    {
      name: 'a group with a slash',
      rule: { name: 'r', kinds: [{ group: 'apps/v1', version: 'v1', kind: 'Deployment' }] },
      want: ['kubeTidy.ttl[0].kinds[0].group: a DNS subdomain'],
    },
    { name: 'the same kind twice', rule: { name: 'r', kinds: [ns, ns] }, want: ['kubeTidy.ttl[0].kinds: each kind once'] },
    { name: 'an unknown source', rule: { name: 'r', kinds: [ns], sources: ['janitor/ttl', 'kyverno'] }, want: ['kubeTidy.ttl[0].sources[1]: '] },
    { name: 'a mode that is neither', rule: { name: 'r', kinds: [ns], mode: 'remove' }, want: ['kubeTidy.ttl[0].mode: '] },
    {
      name: 'a propagation the API server has not',
      rule: { name: 'r', kinds: [ns], propagationPolicy: 'Cascade' },
      want: ['kubeTidy.ttl[0].propagationPolicy: '],
    },
    { name: 'a field no rule has', rule: { name: 'r', kinds: [ns], ttl: '1h' }, want: ['kubeTidy.ttl[0]: '] },
  ])('$name is refused at its field path', ({ rule, want }) => {
    const issues = issuesOf({ ...envelope, kubeTidy: { ttl: [rule] } });
    expect(issues).toHaveLength(want.length);
    want.forEach((w, i) => expect(issues[i]).toContain(w));
  });

  it('every problem at once, across rules', () => {
    const issues = issuesOf({
      ...envelope,
      kubeTidy: {
        ttl: [
          { name: 'A', kinds: [ns] },
          { name: 'b', kinds: [{ version: 'v1' }] },
        ],
      },
    });
    expect(issues.map((i) => i.split(':')[0])).toEqual(['kubeTidy.ttl[0].name', 'kubeTidy.ttl[1].kinds[0].kind']);
  });

  it('a ttl rule may not share an objects rule’s name (both name reports and metrics), nor another ttl rule’s', () => {
    expect(issuesOf({ ...envelope, kubeTidy: { objects: [{ name: 'old', kind: 'Job', minAge: '1h' }], ttl: [{ name: 'old', kinds: [ns] }] } })).toEqual([
      'kubeTidy.ttl[0].name: "old" already names a kubeTidy.objects rule',
    ]);
    expect(
      issuesOf({
        ...envelope,
        kubeTidy: {
          ttl: [
            { name: 'x', kinds: [ns] },
            { name: 'x', kinds: [ns] },
          ],
        },
      }),
    ).toEqual(['kubeTidy.ttl[1].name: duplicate rule name "x"']);
  });

  it('a rate may count any kind by name, so `kinds: [Namespace]` holds a ttl rule’s namespace deletes', () => {
    const { policy } = loadPolicy({
      ...envelope,
      kubeTidy: { ttl: [{ name: 'r', kinds: [ns] }], brakes: { rates: [{ max: 1, per: '10m', kinds: ['Namespace'] }] } },
    });
    expect(policy.brakes?.rates[0]?.kinds).toEqual(['Namespace']);
    expect(
      issuesOf({ ...envelope, kubeTidy: { ttl: [{ name: 'r', kinds: [ns] }], brakes: { rates: [{ max: 1, per: '10m', kinds: ['namespaces'] }] } } })[0],
    ).toContain('kubeTidy.brakes.rates[0].kinds[0]: a Kind as the API server names it');
    // A kind no rule removes would hold nothing: a typo, said.
    expect(
      issuesOf({ ...envelope, kubeTidy: { ttl: [{ name: 'r', kinds: [ns] }], brakes: { rates: [{ max: 1, per: '10m', kinds: ['Deployment'] }] } } }),
    ).toEqual(['kubeTidy.brakes.rates[0].kinds[0]: no rule removes Deployment: one of Pod, Job, PersistentVolumeClaim, Workload, Namespace']);
  });
});
