import { describe, expect, it } from 'vitest';
import { PolicyError } from './errors.js';
import { loadPolicy } from './load.js';

const envelope = { apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy' };

const issuesOf = (raw: unknown): string[] => {
  try {
    loadPolicy(raw);
  } catch (e) {
    if (e instanceof PolicyError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
  return [];
};

describe('kubeTidy.objects in the policy', () => {
  it('a policy of object rules only loads, each rule reporting unless it says delete', () => {
    const { policy } = loadPolicy({
      ...envelope,
      profiles: [],
      kubeTidy: { objects: [{ name: 'jobs', kind: 'Job', minAge: '24h' }] },
    });
    expect(policy.profiles).toEqual([]);
    expect(policy.objects).toEqual([{ name: 'jobs', kind: 'Job', minAge: 86_400_000, mode: 'report' }]);
  });

  it('a policy of object rules only may leave profiles out (or null, as Go reads it)', () => {
    const objects = [{ name: 'jobs', kind: 'Job', minAge: '24h' }];
    expect(loadPolicy({ ...envelope, kubeTidy: { objects } }).policy.profiles).toEqual([]);
    expect(loadPolicy({ ...envelope, profiles: null, kubeTidy: { objects } }).policy.profiles).toEqual([]);
  });

  it('no profiles and no object rules is refused at profiles, written or left out', () => {
    expect(issuesOf(envelope)).toEqual(['profiles: at least one profile is required (or kubeTidy.objects or kubeTidy.ttl rules only)']);
    expect(issuesOf({ ...envelope, profiles: [] })).toEqual(['profiles: at least one profile is required (or kubeTidy.objects or kubeTidy.ttl rules only)']);
  });

  it('deleting claims without the volumes’ reclaim policies acknowledged is refused with its field path', () => {
    const issues = issuesOf({
      ...envelope,
      profiles: [],
      kubeTidy: { objects: [{ name: 'claims', kind: 'PersistentVolumeClaim', minAge: '168h', mode: 'delete' }] },
    });
    expect(issues).toEqual([expect.stringMatching(/^kubeTidy\.objects\[0\]\.reclaimPolicy: deleting claims needs/)]);
  });

  it('a claim rule cannot name another condition than the API server’s Unused', () => {
    const issues = issuesOf({
      ...envelope,
      profiles: [],
      kubeTidy: { objects: [{ name: 'claims', kind: 'PersistentVolumeClaim', minAge: '1h', conditions: [{ type: 'Unused', status: 'True' }] }] },
    });
    expect(issues).toEqual([
      expect.stringMatching(/^kubeTidy\.objects\[0\]\.conditions: a claim is selected only by the condition Unused, True, NoPodsUsingPVC/),
    ]);
  });

  it('a minAge that is not a Go duration is said at its path', () => {
    const issues = issuesOf({ ...envelope, profiles: [], kubeTidy: { objects: [{ name: 'jobs', kind: 'Job', minAge: 'a day' }] } });
    expect(issues).toEqual([expect.stringMatching(/^kubeTidy\.objects\[0\]\.minAge: got "a day", expected a Go duration/)]);
  });

  it('a duplicate rule name is said at the second', () => {
    const jobs = { name: 'jobs', kind: 'Job', minAge: '1h' };
    expect(issuesOf({ ...envelope, profiles: [], kubeTidy: { objects: [jobs, jobs] } })).toEqual(['kubeTidy.objects[1].name: duplicate rule name "jobs"']);
  });
});
