import { beforeEach, describe, expect, it } from 'vitest';
import { Notifier } from './notifier.js';
import { objectDecided, type ObjectResultSaid } from './objects.js';
import type { ObjectDecisionData, OutEvent } from './types.js';

let sent: OutEvent[] = [];
let n: Notifier;
beforeEach(() => {
  sent = [];
  n = Notifier.fromEnv(
    { EVENTS_SINK: 'http://127.0.0.1:9/' },
    () => Date.parse('2026-11-28T12:00:00Z'),
    async (e) => void sent.push(e),
  );
});

const SINCE = Date.parse('2026-11-27T09:30:00Z');

function result(over: Partial<ObjectResultSaid> & { kind?: string; mode?: 'report' | 'delete' } = {}): ObjectResultSaid & { extra?: unknown } {
  const kind = over.kind ?? 'Job';
  return {
    decision: {
      kind,
      namespace: 'ml',
      name: 'train-7',
      uid: 'u-7',
      rule: 'finished-jobs',
      mode: over.mode ?? 'report',
      condition: 'Failed=True',
      since: SINCE,
      reason: 'finished-jobs: Failed=True for 1d (minAge 1h)',
      target:
        kind === 'Workload'
          ? { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: 'ml', name: 'train', uid: 'o-1' }
          : { apiVersion: 'batch/v1', kind, namespace: 'ml', name: 'train-7', uid: 'u-7' },
      // What the pass's decision carries beyond the event's fields: not sent.
      ...{ resourceVersion: '42' },
    },
    outcome: over.outcome ?? 'reported',
    dryRun: over.dryRun ?? false,
    ...(over.message ? { message: over.message } : {}),
  };
}

describe('object decisions as CloudEvents', () => {
  it("a report rule's decision: one object.decided event naming the object, the rule, its condition since when, and nothing removed", async () => {
    objectDecided(n, result(), 'sweep');
    await n.flush(1_000);
    expect(sent).toHaveLength(1);
    const e = sent[0]!;
    expect([e.type, e.source, e.subject, e.dataschema, e.time]).toEqual([
      'dev.kube-tidy.object.decided.v1',
      'kube-tidy/sweep',
      'namespaces/ml/jobs/train-7',
      'https://kube-tidy.dev/schemas/events/object-decision.v1.json',
      '2026-11-28T12:00:00.000Z',
    ]);
    expect(e.data).toEqual({
      kind: 'Job',
      namespace: 'ml',
      name: 'train-7',
      uid: 'u-7',
      rule: 'finished-jobs',
      mode: 'report',
      outcome: 'reported',
      condition: 'Failed=True',
      since: '2026-11-27T09:30:00.000Z',
      reason: 'finished-jobs: Failed=True for 1d (minAge 1h)',
      target: { apiVersion: 'batch/v1', kind: 'Job', namespace: 'ml', name: 'train-7', uid: 'u-7' },
      dryRun: false,
      origin: 'sweep',
    } satisfies ObjectDecisionData);
    expect(e.extensions).toEqual({
      kind: 'Job',
      namespace: 'ml',
      rule: 'finished-jobs',
      mode: 'report',
      outcome: 'reported',
      origin: 'sweep',
      dryrun: 'false',
    });
  });

  it("a delete rule's outcomes, each its own event in order; a Workload's target is its owner; the event path's source is the object event target", async () => {
    objectDecided(n, result({ mode: 'delete', outcome: 'deferred', message: 'rate Job 10/1h reached' }), 'invoke');
    objectDecided(n, result({ mode: 'delete', outcome: 'deleted', dryRun: true }), 'cli');
    objectDecided(n, result({ kind: 'Workload', mode: 'delete', outcome: 'kept', message: 'read again before the delete: no longer matches' }), 'due');
    await n.flush(1_000);
    expect(sent.map((e) => [e.source, e.subject, e.extensions?.outcome, e.extensions?.dryrun, (e.data as ObjectDecisionData).message])).toEqual([
      ['kube-tidy/invoke', 'namespaces/ml/jobs/train-7', 'deferred', 'false', 'rate Job 10/1h reached'],
      ['kube-tidy/cli', 'namespaces/ml/jobs/train-7', 'deleted', 'true', undefined],
      ['kube-tidy/objectUpdated', 'namespaces/ml/workloads/train-7', 'kept', 'false', 'read again before the delete: no longer matches'],
    ]);
    expect((sent[2]!.data as ObjectDecisionData).target).toEqual({
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      namespace: 'ml',
      name: 'train',
      uid: 'o-1',
    });
  });

  it('with no sink nothing is built or sent, and a decision with no readable time never throws', async () => {
    const off = Notifier.off();
    objectDecided(off, result(), 'sweep');
    const odd = result();
    odd.decision.since = Number.NaN;
    expect(() => objectDecided(n, odd, 'sweep')).not.toThrow();
    await n.flush(1_000);
    expect(sent).toEqual([]);
  });
  it("a cluster-scoped object (a ttl rule's Namespace or ClusterRole) is named without a namespace, as the other subjects name one", async () => {
    const ttl = { rule: 'previews', condition: 'expired', reason: 'previews: expired' };
    const ns = { apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'preview-1', uid: 'uid-ns' };
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', namespace: '', name: 'old-role', uid: 'uid-role' };
    const base = result().decision;
    objectDecided(n, { ...result(), decision: { ...base, ...ttl, kind: 'Namespace', namespace: 'preview-1', name: 'preview-1', target: ns } }, 'event');
    objectDecided(n, { ...result(), decision: { ...base, ...ttl, kind: 'ClusterRole', namespace: '', name: 'old-role', target: role } }, 'event');
    await n.flush(1_000);
    expect(sent.map((e) => e.subject)).toEqual(['namespaces/preview-1', 'clusterroles/old-role']);
  });
});
