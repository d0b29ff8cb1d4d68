import { describe, expect, it } from 'vitest';
import { loadPolicy, loadPolicyText } from './load.js';
import { toDeschedulerPolicy } from './normalize.js';
import { policyIssues } from '../../test/fixtures/policy.js';

const base = {
  apiVersion: 'descheduler/v1alpha2',
  kind: 'DeschedulerPolicy',
  profiles: [{ name: 'batch', pluginConfig: [{ name: 'PodLifeTime', args: { states: ['Failed'] } }], plugins: { deschedule: { enabled: ['PodLifeTime'] } } }],
};
const issues = policyIssues;

describe('kubeTidy.retention in the policy', () => {
  it('is absent from the policy when the file has none, and beside the brakes when it has', () => {
    expect(loadPolicy(base).policy.retention).toBeUndefined();
    const p = loadPolicy({ ...base, kubeTidy: { retention: [{ strategies: ['PodLifeTime'], profiles: ['batch'], failed: 3 }, { succeeded: 0 }] } }).policy;
    expect(p.retention).toEqual([{ strategies: ['PodLifeTime'], profiles: ['batch'], failed: 3 }, { succeeded: 0 }]);
    expect(p.brakes).toEqual({ window: 900_000, rates: [], abort: [] });
  });

  it('is written out by the normalized form (policy check) and read back the same', () => {
    const p = loadPolicy({ ...base, kubeTidy: { retention: [{ profiles: ['batch'], failed: 3, succeeded: 1 }] } }).policy;
    expect((toDeschedulerPolicy(p).kubeTidy as { retention?: unknown }).retention).toEqual([{ profiles: ['batch'], failed: 3, succeeded: 1 }]);
    expect(loadPolicy(toDeschedulerPolicy(p)).policy.retention).toEqual(p.retention);
    expect(toDeschedulerPolicy(loadPolicy(base).policy).kubeTidy).not.toHaveProperty('retention');
  });

  it('reads the docs/retention.md example as YAML', () => {
    const yaml = `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: batch
    pluginConfig:
      - name: PodLifeTime
        args: {states: [Failed, Succeeded]}
    plugins:
      deschedule: {enabled: [PodLifeTime]}
kubeTidy:
  retention:
    - strategies: [PodLifeTime]
      failed: 3
      succeeded: 1
`;
    expect(loadPolicyText(yaml).policy.retention).toEqual([{ strategies: ['PodLifeTime'], failed: 3, succeeded: 1 }]);
  });

  it('reports every problem with its field path', () => {
    const found = issues({
      ...base,
      kubeTidy: { retention: [{ failed: -1, succeeded: 1.5 }, { strategies: [] }, { failed: 2, keep: 1 }] },
    });
    expect(found.map((i) => i.path)).toEqual(
      expect.arrayContaining(['kubeTidy.retention[0].failed', 'kubeTidy.retention[0].succeeded', 'kubeTidy.retention[1].strategies', 'kubeTidy.retention[2]']),
    );
    expect(found.find((i) => i.path === 'kubeTidy.retention[2]')?.message).toBe('unknown field "keep"');
  });

  it('refuses a rule that keeps nothing', () => {
    const found = issues({ ...base, kubeTidy: { retention: [{ strategies: ['PodLifeTime'] }] } });
    expect(found).toEqual([{ path: 'kubeTidy.retention[0]', message: 'a retention rule keeps something: set failed, succeeded or both' }]);
  });

  it('refuses names of strategies no profile enables and of profiles that do not exist', () => {
    const found = issues({ ...base, kubeTidy: { retention: [{ strategies: ['PodLifeTime', 'RemoveFailedPods'], profiles: ['bacth'], failed: 1 }] } });
    expect(found).toEqual([
      { path: 'kubeTidy.retention[0].strategies[1]', message: 'got "RemoveFailedPods", expected a strategy a profile enables' },
      { path: 'kubeTidy.retention[0].profiles[0]', message: 'got "bacth", expected the name of a profile' },
    ]);
  });

  it('reports wrong names together with the other problems of the section (the docs/retention.md example)', () => {
    const found = issues({ ...base, kubeTidy: { retention: [{ failed: -1 }, { profiles: ['batch'] }, { strategies: ['RemoveFailedPods'], failed: 1 }] } });
    expect(found.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'kubeTidy.retention[0].failed: Too small: expected number to be >=0',
      'kubeTidy.retention[1]: a retention rule keeps something: set failed, succeeded or both',
      'kubeTidy.retention[2].strategies[0]: got "RemoveFailedPods", expected a strategy a profile enables',
    ]);
  });

  it('reports the section together with the rest of the policy when the envelope is wrong too', () => {
    const found = issues({ ...base, maxNoOfPodsToEvictTotal: 'x', kubeTidy: { retention: [{ failed: 'three' }] } });
    expect(found.map((i) => i.path)).toEqual(expect.arrayContaining(['maxNoOfPodsToEvictTotal', 'kubeTidy.retention[0].failed']));
  });
});
