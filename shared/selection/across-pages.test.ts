import { describe, expect, it } from 'vitest';
import { AcrossPages } from './across-pages.js';
import { decide } from './decide.js';
import type { Pod } from '../model/objects.js';
import { policyOf } from '../../test/fixtures/policy.js';
import { NOW, pod } from '../../test/fixtures/pods.js';

// What properties.test.ts checks over random pods, on the cases random pods seldom give.

function acrossPages(pods: Pod[], pageSize: number, limits: Record<string, unknown> = {}) {
  const policy = policyOf([{ name: 'PodLifeTime', args: { states: ['Failed'] } }], { top: limits, evictor: { evictFailedBarePods: true } });
  const pass = new AcrossPages(policy);
  for (let i = 0; i < pods.length; i += pageSize) pass.add(decide(policy, { pods: pods.slice(i, i + pageSize) }, NOW, pass.options));
  return { whole: decide(policy, { pods }, NOW), done: pass.finish() };
}

describe('AcrossPages', () => {
  it('pods of the same age on different pages go in the order the pages brought them, as in one decide', () => {
    // Equal sort keys: the limit keeps the first in list order, page after page.
    const pods = Array.from({ length: 9 }, (_, i) =>
      pod(`p${i}`)
        .inNamespace(`ns${i % 2}`)
        .age(3600)
        .failed()
        .build(),
    );
    const { whole, done } = acrossPages(pods, 2, { maxNoOfPodsToEvictTotal: 5 });
    expect(done.decisions.map((d) => d.name)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
    expect(done.decisions).toEqual(whole.decisions);
  });

  it('a page per pod: each decision names its namespace, node and reason as one decide does (kept once, unchanged)', () => {
    // (A string's identity is not visible to a test: that they are kept once is what the planner-memory bench shows.)
    const pods = Array.from({ length: 6 }, (_, i) =>
      pod(`p${i}`)
        .inNamespace(i % 2 ? 'ml' : 'etl')
        .onNode(`n${i % 3}`)
        .age(100 + i)
        .failed()
        .build(),
    );
    const { whole, done } = acrossPages(pods, 1);
    expect(done.decisions).toEqual(whole.decisions);
  });
});
