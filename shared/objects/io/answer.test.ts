import { describe, expect, it } from 'vitest';
import type { ObjectDecision } from '../core/model.js';
import { objectsAnswer } from './answer.js';
import type { ObjectsPassSummary } from './pass.js';

const decision = (name: string, over: Partial<ObjectDecision> = {}): ObjectDecision => ({
  kind: 'Job',
  namespace: 'ml',
  name,
  uid: `u-${name}`,
  resourceVersion: '7',
  rule: 'jobs',
  mode: 'delete',
  condition: 'Complete=True',
  since: 0,
  reason: 'jobs: Complete=True for 2h (minAge 1h)',
  target: { apiVersion: 'batch/v1', kind: 'Job', namespace: 'ml', name, uid: `u-${name}` },
  ...over,
});

const summary = (over: Partial<ObjectsPassSummary>): ObjectsPassSummary => ({
  rules: 1,
  considered: 3,
  results: [],
  kept: [],
  eligible: [],
  notServed: [],
  failures: { transient: 0, refused: 0 },
  ...over,
});

describe('objectsAnswer', () => {
  it('counts outcomes and lists each result with its rule, mode and reason', () => {
    const a = objectsAnswer(
      summary({
        results: [
          { decision: decision('a'), outcome: 'deleted', dryRun: false },
          { decision: decision('b'), outcome: 'deferred', dryRun: false, message: 'kubeTidy.brakes.rates[0] (1 per 1h in the cluster)' },
          { decision: decision('c', { mode: 'report' }), outcome: 'reported', dryRun: false },
        ],
      }),
    );
    expect(a.outcomes).toEqual({ deleted: 1, deferred: 1, reported: 1 });
    expect(a.results[1]).toEqual({
      kind: 'Job',
      namespace: 'ml',
      name: 'b',
      rule: 'jobs',
      mode: 'delete',
      outcome: 'deferred',
      reason: 'jobs: Complete=True for 2h (minAge 1h)',
      message: 'kubeTidy.brakes.rates[0] (1 per 1h in the cluster)',
    });
    expect(a.notServed).toBeUndefined();
  });

  it("names a Workload's owner as what goes, and says kinds the cluster does not serve", () => {
    const w = decision('wl', { kind: 'Workload', target: { apiVersion: 'batch/v1', kind: 'Job', namespace: 'ml', name: 'train', uid: 'u-train' } });
    const a = objectsAnswer(summary({ results: [{ decision: w, outcome: 'reported', dryRun: true }], notServed: ['Workload'] }));
    expect(a.results[0]!.target).toBe('Job/train');
    expect(a.notServed).toEqual(['Workload']);
  });

  it('bounds the lists, never the counts', () => {
    const many = Array.from({ length: 700 }, (_, i) => ({ decision: decision(`j${i}`), outcome: 'reported' as const, dryRun: false }));
    const a = objectsAnswer(
      summary({ results: many, eligible: [{ kind: 'Job', namespace: 'ml', name: 'soon', uid: 'u', resourceVersion: '1', rule: 'jobs', at: 0 }] }),
    );
    expect(a.results).toHaveLength(500);
    expect(a.outcomes.reported).toBe(700);
    expect(a.eligible).toEqual([{ kind: 'Job', namespace: 'ml', name: 'soon', rule: 'jobs', at: '1970-01-01T00:00:00.000Z' }]);
  });
});
