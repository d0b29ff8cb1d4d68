import { describe, expect, it } from 'vitest';
import type { Policy } from '../../../policy/policy.js';
import {
  buildReports,
  MAX_RESULT_BYTES,
  MESSAGE_MAX,
  profileByStrategy,
  ReportCollector,
  resultId,
  statusOf,
  type KeptPod,
  type SelectedPod,
} from './build.js';
import { ANNOTATIONS, MANAGED_BY_LABEL, POLICY_LABEL, policySlug, reportName } from './names.js';

const policy = {
  limits: {},
  profiles: [
    { name: 'nightly', evictor: {}, strategies: [{ name: 'PodLifeTime', args: {} }] },
    {
      name: 'failures',
      evictor: {},
      strategies: [
        { name: 'RemoveFailedPods', args: {} },
        { name: 'PodLifeTime', args: {} },
      ],
    },
  ],
} as unknown as Policy;

const selected = (namespace: string, name: string, over: Partial<SelectedPod> = {}): SelectedPod => ({
  namespace,
  name,
  uid: `uid-${name}`,
  strategy: 'PodLifeTime',
  action: 'delete',
  outcome: 'deleted',
  dryRun: true,
  reason: `${name} is older than 1h`,
  ...over,
});
const kept = (namespace: string, name: string, over: Partial<KeptPod> = {}): KeptPod => ({
  namespace,
  name,
  strategy: 'PodLifeTime',
  reason: 'maxNoOfPodsToEvictPerNamespace (1) reached',
  ...over,
});

const ctx = { pass: 'p1', mode: 'plan' as const, now: 1_795_000_000_500 };

function collect(sel: SelectedPod[], kep: KeptPod[], cap?: number, protectedNamespaces: string[] = ['kube-system']) {
  const c = new ReportCollector({ profileOf: profileByStrategy(policy), protectedNamespaces, ...(cap ? { cap } : {}) });
  for (const s of sel) c.selected(s);
  for (const k of kep) c.kept(k);
  return c.contents();
}

describe('building reports from a pass', () => {
  it('one report per namespace and profile, the pods of that namespace only, selected as fail and kept as skip', () => {
    const reports = buildReports(
      collect(
        [selected('a', 'a1'), selected('b', 'b1'), selected('a', 'a2', { strategy: 'RemoveFailedPods', reason: 'failed with exit code 3' })],
        [kept('a', 'a3')],
      ),
      ctx,
    );
    const byKey = Object.fromEntries(reports.map((r) => [`${r.metadata.namespace}/${r.metadata.name}`, r]));
    expect(Object.keys(byKey).sort()).toEqual(['a/kube-tidy-failures', 'a/kube-tidy-nightly', 'b/kube-tidy-nightly']);
    const a = byKey['a/kube-tidy-nightly']!;
    expect(a.results.map((r) => [r.resources[0]!.name, r.result, r.rule, r.policy])).toEqual([
      ['a1', 'fail', 'PodLifeTime', 'nightly'],
      ['a3', 'skip', 'PodLifeTime', 'nightly'],
    ]);
    expect(a.summary).toEqual({ pass: 0, fail: 1, warn: 0, error: 0, skip: 1 });
    expect(a.results[0]).toEqual({
      source: 'kube-tidy',
      policy: 'nightly',
      rule: 'PodLifeTime',
      category: 'cleanup',
      result: 'fail',
      severity: 'low',
      scored: true,
      timestamp: { seconds: 1_795_000_000, nanos: 0 },
      resources: [{ apiVersion: 'v1', kind: 'Pod', namespace: 'a', name: 'a1', uid: 'uid-a1' }],
      message: 'a1 is older than 1h',
      properties: { resultID: expect.stringMatching(/^[0-9a-f]{40}$/), action: 'delete', outcome: 'deleted', dryRun: 'true', pass: 'p1', mode: 'plan' },
    });
    expect(a.results[1]).toMatchObject({ result: 'skip', severity: 'info', scored: false });
    expect(a.results[1]!.message).toBe('kept: maxNoOfPodsToEvictPerNamespace (1) reached');
    expect(a.results[1]!.resources[0]).toEqual({ apiVersion: 'v1', kind: 'Pod', namespace: 'a', name: 'a3' });
    expect(a.metadata.labels).toEqual({ [MANAGED_BY_LABEL]: 'kube-tidy', [POLICY_LABEL]: 'nightly' });
    expect(a.metadata.annotations).toEqual({
      [ANNOTATIONS.policy]: 'nightly',
      [ANNOTATIONS.pass]: 'p1',
      [ANNOTATIONS.mode]: 'plan',
      [ANNOTATIONS.leftOut]: '0',
    });
    expect(byKey['a/kube-tidy-failures']!.results.map((r) => r.resources[0]!.name)).toEqual(['a2']);
  });

  it.each([
    ['deleted', 'fail'],
    ['evicted', 'fail'],
    ['blocked', 'fail'],
    ['deferred', 'fail'],
    ['gone', 'fail'],
    ['stale', 'fail'],
    ['failed', 'error'],
    ['refused', 'error'],
  ])('a selected pod whose outcome is %s is a %s result', (outcome, status) => {
    expect(statusOf(outcome)).toBe(status);
  });

  it('a result keeps its id from pass to pass while its message changes (Policy Reporter notifies a new id again), and a changed status is a new id', () => {
    const first = buildReports(collect([selected('a', 'a1', { reason: 'age 37s > 10s' })], [kept('a', 'a3')]), ctx);
    const later = buildReports(collect([selected('a', 'a1', { reason: 'age 1m3s > 10s' })], [kept('a', 'a3')]), { ...ctx, pass: 'p2', now: ctx.now + 60_000 });
    const ids = (rs: typeof first) => rs.flatMap((r) => r.results.map((x) => x.properties.resultID));
    expect(ids(later)).toEqual(ids(first));
    expect(new Set(ids(first)).size).toBe(2);
    const failed = buildReports(collect([selected('a', 'a1', { outcome: 'failed' })], []), ctx);
    expect(failed[0]!.results[0]).toMatchObject({ result: 'error', severity: 'medium' });
    expect(ids(failed)[0]).not.toBe(ids(first)[0]);
    expect(resultId('nightly', 'PodLifeTime', { namespace: 'a', name: 'a1', uid: 'u' }, 'fail')).not.toBe(
      resultId('other', 'PodLifeTime', { namespace: 'a', name: 'a1', uid: 'u' }, 'fail'),
    );
  });

  it("the API server's answer follows the reason in the message", () => {
    const [r] = buildReports(collect([selected('a', 'a1', { outcome: 'blocked', action: 'evict', message: 'Cannot evict pod: disruption budget' })], []), ctx);
    expect(r!.results[0]!.message).toBe('a1 is older than 1h (blocked: Cannot evict pod: disruption budget)');
    expect(r!.results[0]!.properties).toMatchObject({ action: 'evict', outcome: 'blocked' });
  });

  it('a result that names its profile is reported under it, one that does not under the first profile enabling its strategy', () => {
    const reports = buildReports(
      collect([selected('a', 'x'), selected('a', 'y', { profile: 'failures' })], [kept('a', 'z', { profile: 'failures', uid: 'u-z' })]),
      ctx,
    );
    expect(reports.map((r) => [r.metadata.name, r.results.map((x) => x.resources[0]!.name)])).toEqual([
      ['kube-tidy-nightly', ['x']],
      ['kube-tidy-failures', ['y', 'z']],
    ]);
    expect(reports[1]!.results[1]!.resources[0]!.uid).toBe('u-z');
  });

  it('nothing is reported in a protected namespace', () => {
    expect(buildReports(collect([selected('kube-system', 'k')], [kept('kube-system', 'j')]), ctx)).toEqual([]);
  });

  it('past the cap the summary stays complete, selected pods come first, and an annotation says how many were left out', () => {
    const sel = Array.from({ length: 7 }, (_, i) => selected('a', `s${i}`, i === 6 ? { outcome: 'refused' } : {}));
    const kep = Array.from({ length: 4 }, (_, i) => kept('a', `k${i}`));
    const [r] = buildReports(collect(sel, kep, 5), { ...ctx, cap: 5 });
    expect(r!.summary).toEqual({ pass: 0, fail: 6, warn: 0, error: 1, skip: 4 });
    expect(r!.results.map((x) => x.resources[0]!.name)).toEqual(['s0', 's1', 's2', 's3', 's4']);
    expect(r!.metadata.annotations[ANNOTATIONS.leftOut]).toBe('6');
    expect(r!.configuration.limits.maxResults).toBe(5);
  });

  it('the collector holds at most the cap of each kind, whatever the pass saw', () => {
    const [g] = collect(
      Array.from({ length: 50 }, (_, i) => selected('a', `s${i}`)),
      Array.from({ length: 50 }, (_, i) => kept('a', `k${i}`)),
      10,
    );
    expect(g!.selected).toHaveLength(10);
    expect(g!.kept).toHaveLength(10);
    expect(g!.summary.fail + g!.summary.skip).toBe(100);
  });

  it('a report stays under the byte budget however long the messages, and each message is cut', () => {
    const long = 'x'.repeat(50_000);
    const sel = Array.from({ length: 1000 }, (_, i) => selected('a', `pod-${'n'.repeat(200)}-${i}`, { reason: long, message: long }));
    const [r] = buildReports(collect(sel, []), ctx);
    const bytes = Buffer.byteLength(JSON.stringify(r!.results));
    expect(bytes).toBeLessThanOrEqual(MAX_RESULT_BYTES + r!.results.length);
    expect(r!.results.length).toBeLessThan(1000);
    expect(r!.results[0]!.message.length).toBe(MESSAGE_MAX);
    expect(Number(r!.metadata.annotations[ANNOTATIONS.leftOut])).toBe(1000 - r!.results.length);
    expect(r!.summary.fail).toBe(1000);
    expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThan(1.5 * 1024 * 1024);
  });

  it('kept pods the pass itself did not list are said on each report', () => {
    const [r] = buildReports(collect([selected('a', 'a1')], []), { ...ctx, keptNotListed: 12 });
    expect(r!.metadata.annotations[ANNOTATIONS.keptNotListed]).toBe('12');
  });
});

describe('report names', () => {
  it.each([
    ['nightly', 'kube-tidy-nightly', 'nightly'],
    ['ProfileName', /^kube-tidy-profilename-[0-9a-f]{8}$/, /^profilename-[0-9a-f]{8}$/],
    ['my profile/v2', /^kube-tidy-my-profile-v2-[0-9a-f]{8}$/, /^my-profile-v2-[0-9a-f]{8}$/],
    ['!!!', /^kube-tidy-[0-9a-f]{8}$/, /^[0-9a-f]{8}$/],
    ['a'.repeat(80), /^kube-tidy-a{43}-[0-9a-f]{8}$/, /^a{43}-[0-9a-f]{8}$/],
  ])('profile %j is reported as %s with label %s', (profile, name, label) => {
    if (typeof name === 'string') expect(reportName(profile)).toBe(name);
    else expect(reportName(profile)).toMatch(name);
    if (typeof label === 'string') expect(policySlug(profile)).toBe(label);
    else expect(policySlug(profile)).toMatch(label);
    expect(policySlug(profile).length).toBeLessThanOrEqual(63);
    expect(policySlug(profile)).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });

  it('two profiles that fold to the same text get two reports', () => {
    expect(reportName('Nightly')).not.toBe(reportName('nightly'));
    expect(reportName('a b')).not.toBe(reportName('a-b'));
  });
});
