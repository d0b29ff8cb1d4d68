import { describe, expect, it } from 'vitest';
import { MAX_RESULT_BYTES } from '../../../cleanup/reports/core/build.js';
import { ANNOTATIONS, POLICY_LABEL, reportName, reportSelector } from '../../../cleanup/reports/core/names.js';
import type { ObjectDecision, ObjectKept } from '../../core/model.js';
import { buildObjectReports, type ObjectReported } from './build.js';
import { OBJECT_ANNOTATIONS, OBJECT_RULE_LABEL, objectReportName, objectReportSelector } from './names.js';

const NOW = Date.parse('2026-11-28T12:00:00.500Z');
const SINCE = Date.parse('2026-11-27T12:00:00Z');

function decision(name: string, over: Partial<ObjectDecision> = {}): ObjectDecision {
  const namespace = over.namespace ?? 'ml';
  return {
    kind: 'Job',
    namespace,
    name,
    uid: `u-${name}`,
    resourceVersion: '1',
    rule: 'finished-jobs',
    mode: 'report',
    condition: 'Complete=True',
    since: SINCE,
    reason: 'finished-jobs: Complete=True for 1d (minAge 1h)',
    target: { apiVersion: 'batch/v1', kind: 'Job', namespace, name, uid: `u-${name}` },
    ...over,
  };
}
const reported = (d: ObjectDecision, outcome = 'reported', more: Partial<ObjectReported> = {}): ObjectReported => ({
  decision: d,
  outcome,
  dryRun: false,
  ...more,
});
const kept = (name: string, reason: string, over: Partial<ObjectKept> = {}): ObjectKept => ({
  kind: 'Job',
  namespace: 'ml',
  name,
  uid: `u-${name}`,
  resourceVersion: '1',
  rule: 'finished-jobs',
  reason,
  ...over,
});

const ctx = {
  rules: [
    { name: 'finished-jobs', mode: 'report' as const },
    { name: 'unused-claims', mode: 'delete' as const },
  ],
  origin: 'sweep',
  now: NOW,
  protectedNamespaces: ['kube-system'],
};

describe("an objects pass's results as Reports", () => {
  it("a report rule: one Report per namespace and rule, each object it would remove a fail result with the rule's reason, kept ones skip", () => {
    const reports = buildObjectReports(
      [reported(decision('a')), reported(decision('b', { namespace: 'other' }))],
      [kept('c', "the newest 3 of CronJob nightly's history (successfulJobsHistoryLimit)")],
      ctx,
    );
    expect(reports.map((r) => `${r.metadata.namespace}/${r.metadata.name}`)).toEqual([
      'ml/kube-tidy-objects.finished-jobs',
      'other/kube-tidy-objects.finished-jobs',
    ]);
    const ml = reports[0]!;
    expect(ml.summary).toEqual({ pass: 0, fail: 1, warn: 0, error: 0, skip: 1 });
    expect(ml.results[0]).toEqual({
      source: 'kube-tidy',
      policy: 'finished-jobs',
      rule: 'finished-jobs',
      category: 'cleanup',
      result: 'fail',
      severity: 'low',
      scored: true,
      timestamp: { seconds: Math.floor(NOW / 1000), nanos: 0 },
      resources: [{ apiVersion: 'batch/v1', kind: 'Job', namespace: 'ml', name: 'a', uid: 'u-a' }],
      message: 'would remove Job ml/a: finished-jobs: Complete=True for 1d (minAge 1h)',
      properties: {
        resultID: expect.stringMatching(/^[0-9a-f]{40}$/),
        mode: 'report',
        outcome: 'reported',
        dryRun: 'false',
        origin: 'sweep',
        condition: 'Complete=True',
        since: '2026-11-27T12:00:00.000Z',
      },
    });
    expect(ml.results[1]).toMatchObject({
      result: 'skip',
      severity: 'info',
      scored: false,
      message: "kept: the newest 3 of CronJob nightly's history (successfulJobsHistoryLimit)",
      properties: { kept: 'true' },
    });
    expect(ml.metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'kube-tidy', [OBJECT_RULE_LABEL]: 'finished-jobs' });
    expect(ml.metadata.annotations).toEqual({ [OBJECT_ANNOTATIONS.mode]: 'report', [OBJECT_ANNOTATIONS.origin]: 'sweep', [ANNOTATIONS.leftOut]: '0' });
  });

  it("a delete rule's results: removed, would remove (dry run), held back with why, an error when the delete failed, skip when the re-read kept it", () => {
    const claim = (name: string) =>
      decision(name, {
        kind: 'PersistentVolumeClaim',
        rule: 'unused-claims',
        mode: 'delete',
        condition: 'Unused=True (NoPodsUsingPVC)',
        target: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'ml', name, uid: `u-${name}` },
      });
    const [r] = buildObjectReports(
      [
        reported(claim('gone-now'), 'deleted'),
        reported(claim('planned'), 'deleted', { dryRun: true }),
        reported(claim('held'), 'deferred', { message: 'rate PersistentVolumeClaim 5/1h reached' }),
        reported(claim('broke'), 'failed', { message: 'etcd timeout' }),
        reported(claim('taken'), 'kept', { message: 'read again before the delete: used by pod ml/p, which is not finished' }),
      ],
      [],
      ctx,
    );
    expect(r!.results.map((x) => [x.resources[0]!.name, x.result, x.message])).toEqual([
      ['gone-now', 'fail', 'removed PersistentVolumeClaim ml/gone-now: finished-jobs: Complete=True for 1d (minAge 1h)'],
      ['planned', 'fail', 'would remove PersistentVolumeClaim ml/planned: finished-jobs: Complete=True for 1d (minAge 1h)'],
      [
        'held',
        'fail',
        'to remove PersistentVolumeClaim ml/held: finished-jobs: Complete=True for 1d (minAge 1h) (deferred: rate PersistentVolumeClaim 5/1h reached)',
      ],
      ['broke', 'error', 'to remove PersistentVolumeClaim ml/broke: finished-jobs: Complete=True for 1d (minAge 1h) (failed: etcd timeout)'],
      ['taken', 'skip', 'kept: read again before the delete: used by pod ml/p, which is not finished'],
    ]);
    expect(r!.results[0]!.resources[0]).toEqual({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'ml', name: 'gone-now', uid: 'u-gone-now' });
    expect(r!.summary).toEqual({ pass: 0, fail: 3, warn: 0, error: 1, skip: 1 });
    expect(r!.metadata.annotations[OBJECT_ANNOTATIONS.mode]).toBe('delete');
  });

  it("a finished Workload's result names the Workload and the owner that would go with it", () => {
    const w = decision('wl', {
      kind: 'Workload',
      target: { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: 'ml', name: 'train', uid: 'o-1' },
    });
    const [r] = buildObjectReports([reported(w)], [], ctx);
    expect(r!.results[0]!.message).toBe('would remove JobSet ml/train (the owner of Workload ml/wl): finished-jobs: Complete=True for 1d (minAge 1h)');
    expect(r!.results[0]!.resources[0]).toMatchObject({ apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'Workload', name: 'wl' });
    expect(r!.results[0]!.properties.target).toBe('jobset.x-k8s.io/v1alpha2 JobSet train');
  });

  it('a result keeps its id from pass to pass while its reason ages; a changed status is a new id', () => {
    const first = buildObjectReports([reported(decision('a'))], [], ctx);
    const later = buildObjectReports([reported(decision('a', { reason: 'finished-jobs: Complete=True for 2d (minAge 1h)' }))], [], {
      ...ctx,
      now: NOW + 86_400_000,
    });
    const id = (rs: typeof first) => rs[0]!.results[0]!.properties.resultID;
    expect(id(later)).toBe(id(first));
    expect(id(buildObjectReports([reported(decision('a'), 'failed')], [], ctx))).not.toBe(id(first));
  });

  it('nothing is reported in a protected namespace', () => {
    expect(buildObjectReports([reported(decision('k', { namespace: 'kube-system' }))], [kept('j', 'x', { namespace: 'kube-system' })], ctx)).toEqual([]);
  });

  it("a ttl rule's Namespace is reported in itself, with its API version; a cluster-scoped object of another kind has no namespace to report in", () => {
    const ttl = { rule: 'previews', kind: 'Namespace', apiVersion: 'v1', condition: 'expired' };
    const ns = decision('preview-1', { ...ttl, namespace: 'preview-1' });
    const role = decision('old-role', { ...ttl, kind: 'ClusterRole', apiVersion: 'rbac.authorization.k8s.io/v1', namespace: '' });
    const reports = buildObjectReports([reported(ns), reported(role)], [kept('other-role', 'unreadable', { kind: 'ClusterRole', namespace: '' })], {
      ...ctx,
      rules: [{ name: 'previews', mode: 'report' }],
    });
    expect(reports.map((r) => r.metadata.namespace)).toEqual(['preview-1']);
    // Deleted (not as a dry run), it is terminating: no Report is written in it; planned, it is.
    expect(buildObjectReports([reported(ns, 'deleted')], [], { ...ctx, rules: [{ name: 'previews', mode: 'delete' }] })).toEqual([]);
    expect(buildObjectReports([reported(ns, 'deleted', { dryRun: true })], [], ctx).map((r) => r.metadata.namespace)).toEqual(['preview-1']);
    expect(reports[0]!.results[0]!.resources).toEqual([{ apiVersion: 'v1', kind: 'Namespace', namespace: 'preview-1', name: 'preview-1', uid: 'u-preview-1' }]);
  });

  it('bounded: past the cap the summary stays complete, decisions come first, an annotation says how many were left out, and the bytes stay under budget', () => {
    const many = Array.from({ length: 7 }, (_, i) => reported(decision(`j${i}`)));
    const [capped] = buildObjectReports(
      many,
      Array.from({ length: 3 }, (_, i) => kept(`k${i}`, 'keepLast 3')),
      { ...ctx, cap: 5 },
    );
    expect(capped!.results.map((x) => x.resources[0]!.name)).toEqual(['j0', 'j1', 'j2', 'j3', 'j4']);
    expect(capped!.summary).toEqual({ pass: 0, fail: 7, warn: 0, error: 0, skip: 3 });
    expect(capped!.metadata.annotations[ANNOTATIONS.leftOut]).toBe('5');
    const long = 'x'.repeat(50_000);
    const [big] = buildObjectReports(
      Array.from({ length: 1000 }, (_, i) => reported(decision(`job-${'n'.repeat(200)}-${i}`, { reason: long }))),
      [],
      ctx,
    );
    expect(Buffer.byteLength(JSON.stringify(big!.results))).toBeLessThanOrEqual(MAX_RESULT_BYTES + big!.results.length);
    expect(big!.results.length).toBeLessThan(1000);
    expect(big!.summary.fail).toBe(1000);
  });
});

describe('object reports never share a name or a selector with pod reports', () => {
  it.each(['objects', 'finished-jobs', 'objects.finished-jobs', 'kube-tidy-objects'])('pod profile %j', (profile) => {
    for (const rule of ['finished-jobs', 'objects', 'a']) {
      expect(objectReportName(rule)).not.toBe(reportName(profile));
      // Each selector requires a label the other family's reports never carry.
      expect(objectReportSelector(rule)).toContain(OBJECT_RULE_LABEL);
      expect(reportSelector(profile)).toContain(POLICY_LABEL);
    }
  });
});
