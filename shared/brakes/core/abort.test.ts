import { describe, expect, it } from 'vitest';
import { abortCut, consideredIn } from './abort.js';
import type { Subject } from './meters.js';

const s = (namespace: string, owner?: string): Subject => ({ namespace, ...(owner ? { owner: `${namespace}/ReplicaSet/${owner}` } : {}) });
const count = (pods: Subject[], rules: Parameters<typeof consideredIn>[0]) => {
  const m = new Map<string, number>();
  for (const p of pods) for (const id of consideredIn(rules, p)) m.set(id, (m.get(id) ?? 0) + 1);
  return m;
};

describe('the percentage abort', () => {
  it('cuts the plan at the removal that would cross the percent of a scope, and names it', () => {
    const rules = [{ scope: 'owner' as const, percent: 30, minPods: 0 }];
    const cluster = Array.from({ length: 10 }, () => s('ml', 'web'));
    const cut = abortCut(cluster.slice(0, 5), count(cluster, rules), rules);
    expect(cut.keep).toBe(3);
    expect(cut.trip).toMatchObject({ scope: 'owner', key: 'ml/ReplicaSet/web', percent: 30, selected: 5, considered: 10 });
    expect(cut.why).toContain('would remove 5 of the 10 pods it considered in owner ml/ReplicaSet/web (50%), more than 30%');
  });

  it('a plan within the percent is not cut', () => {
    const rules = [{ scope: 'namespace' as const, percent: 50, minPods: 0 }];
    const pods = [s('a'), s('a'), s('a'), s('a'), s('b'), s('b')];
    expect(abortCut([s('a'), s('a'), s('b')], count(pods, rules), rules)).toEqual({ keep: 3 });
  });

  it('scopes with fewer pods than minPods are not judged; bare pods have no owner scope', () => {
    const rules = [{ scope: 'owner' as const, percent: 10, minPods: 3 }];
    const pods = [s('a', 'job-1'), s('a', 'job-1'), s('a')];
    expect(abortCut(pods, count(pods, rules), rules)).toEqual({ keep: 3 });
  });

  it('the cluster scope judges every pod the pass read', () => {
    const rules = [{ scope: 'cluster' as const, percent: 20, minPods: 0 }];
    const pods = Array.from({ length: 10 }, (_, i) => s(`n${i}`));
    expect(abortCut(pods.slice(0, 3), count(pods, rules), rules).keep).toBe(2);
  });
});
