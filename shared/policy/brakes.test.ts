import { describe, expect, it } from 'vitest';
import { loadPolicy } from './load.js';
import { policyIssues } from '../../test/fixtures/policy.js';

const base = { apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy', profiles: [{ name: 'p', pluginConfig: [], plugins: {} }] };
const issues = policyIssues;

describe('kubeTidy.brakes in the policy', () => {
  it('a descheduler file without the section gets the default window and no extra budgets', () => {
    expect(loadPolicy(base).policy.brakes).toEqual({ window: 900_000, rates: [], abort: [] });
  });

  it('reads window, rates and aborts with their defaults', () => {
    const p = loadPolicy({
      ...base,
      kubeTidy: {
        brakes: {
          window: '1h',
          rates: [
            { max: 30, per: '10m' },
            { max: 2, per: '1m', scope: 'owner' },
          ],
          abort: [{ percent: 30, scope: 'namespace' }],
        },
      },
    }).policy;
    expect(p.brakes).toEqual({
      window: 3_600_000,
      rates: [
        { max: 30, per: 600_000, scope: 'cluster', kinds: ['Pod'] },
        { max: 2, per: 60_000, scope: 'owner', kinds: ['Pod'] },
      ],
      abort: [{ percent: 30, scope: 'namespace', minPods: 0 }],
    });
  });

  it("a rate's kinds: what it counts, pods when absent, each kind once", () => {
    const rates = (r: unknown[]) => loadPolicy({ ...base, kubeTidy: { brakes: { rates: r } } }).policy.brakes?.rates.map((x) => x.kinds);
    expect(rates([{ max: 1, per: '1h' }])).toEqual([['Pod']]);
    expect(rates([{ max: 1, per: '1h', kinds: ['Job'] }])).toEqual([['Job']]);
    expect(rates([{ max: 1, per: '1h', kinds: ['Pod', 'Job', 'PersistentVolumeClaim', 'Workload'] }])).toEqual([
      ['Pod', 'Job', 'PersistentVolumeClaim', 'Workload'],
    ]);
    const refused = (kinds: unknown) => issues({ ...base, kubeTidy: { brakes: { rates: [{ max: 1, per: '1h', kinds }] } } });
    expect(refused(['Job', 'Job']).map((i) => [i.path, i.message])).toEqual([['kubeTidy.brakes.rates[0].kinds', expect.stringContaining('each kind once')]]);
    expect(refused([]).map((i) => i.path)).toEqual(['kubeTidy.brakes.rates[0].kinds']);
    expect(refused(['CronJob']).map((i) => i.path)).toEqual(['kubeTidy.brakes.rates[0].kinds[0]']);
    expect(refused('Job').map((i) => i.path)).toEqual(['kubeTidy.brakes.rates[0].kinds']);
  });

  it('reports every problem with its field path, together with the rest of the policy', () => {
    const found = issues({
      ...base,
      profiles: [{ name: 'p', pluginConfig: [], plugins: { deschedule: { enabled: ['Nope'] } } }],
      kubeTidy: { brakes: { window: '90', rates: [{ max: -1, per: '1m', scope: 'node' }], abort: [{ percent: 0 }], extra: 1 } },
    });
    const paths = found.map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'kubeTidy.brakes.window',
        'kubeTidy.brakes.rates[0].max',
        'kubeTidy.brakes.rates[0].scope',
        'kubeTidy.brakes.abort[0].percent',
        'kubeTidy.brakes',
        'profiles[0].plugins.deschedule.enabled[0]',
      ]),
    );
    expect(found.find((i) => i.path === 'kubeTidy.brakes.window')?.message).toContain('Go duration');
  });

  it('a window that is not whole seconds, or longer than a week, is refused', () => {
    expect(issues({ ...base, kubeTidy: { brakes: { window: '1500ms' } } }).map((i) => i.path)).toEqual(['kubeTidy.brakes.window']);
    expect(issues({ ...base, kubeTidy: { brakes: { window: '169h' } } }).map((i) => i.path)).toEqual(['kubeTidy.brakes.window']);
  });
});
