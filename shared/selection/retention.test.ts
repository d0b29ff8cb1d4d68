import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { AcrossPages } from './across-pages.js';
import { decide } from './decide.js';
import { finishedAt, groupOf, ordinal, RetentionIndex, ruleFor } from './retention.js';
import type { Pod } from '../model/objects.js';
import { loadPolicy } from '../policy/load.js';
import { policyDoc, type PluginSpec } from '../../test/fixtures/policy.js';
import { NOW, pod } from '../../test/fixtures/pods.js';

// kubeTidy.retention's core: who is an owner, what is newest, and which selected pods stay.

const iso = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString();

/** A pod of `kind` `owner` in `phase` that finished `secondsAgo`. */
function done(name: string, secondsAgo: number, opts: { owner?: string; kind?: string; phase?: 'Failed' | 'Succeeded'; exitCode?: number } = {}): Pod {
  const b = pod(name)
    .inNamespace('batch')
    .withUid(`uid-${name}`)
    .ownedBy(opts.kind ?? 'Job', opts.owner ?? 'etl-28891');
  const p = (opts.phase === 'Succeeded' ? b.succeeded() : b.failed({ exitCode: opts.exitCode ?? 1 })).build();
  (p.status!.containerStatuses![0]!.state!.terminated as { finishedAt?: string }).finishedAt = iso(secondsAgo);
  return p;
}

function policyWith(retention: unknown[], plugins: PluginSpec[] = [{ name: 'PodLifeTime', args: { states: ['Failed', 'Succeeded'] } }], top: object = {}) {
  return loadPolicy({ ...policyDoc(plugins), ...top, kubeTidy: { retention } }).policy;
}

const names = (xs: readonly { name: string }[]) => xs.map((x) => x.name).sort();

describe('what retention counts', () => {
  it('ordinals', () => {
    expect([1, 2, 3, 4, 10, 11, 12, 13, 21, 22, 23, 101, 111, 112].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '10th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '23rd',
      '101st',
      '111th',
      '112th',
    ]);
  });

  it('a pod finished when its last container did (init containers too), else when it was created', () => {
    const p = done('a', 100);
    p.status!.initContainerStatuses = [{ name: 'init', state: { terminated: { exitCode: 0, finishedAt: iso(50) } as never } }];
    expect(finishedAt(p)).toBe(NOW - 50_000);
    const never = pod('b').age(300).failed().build();
    expect(finishedAt(never)).toBe(NOW - 300_000);
  });

  it('groups by the controller owner, a Job under its CronJob when that is known', () => {
    const p = done('a', 1, { owner: 'etl-1' });
    expect(groupOf(p)).toEqual({ kind: 'Job', name: 'etl-1', uid: 'job-etl-1', namespace: 'batch' });
    const jobs = new Map([['job-etl-1', { kind: 'CronJob', name: 'etl', uid: 'cj-etl' }]]);
    expect(groupOf(p, jobs)).toEqual({ kind: 'CronJob', name: 'etl', uid: 'cj-etl', namespace: 'batch' });
    const notController = pod('c').failed().build();
    notController.metadata.ownerReferences = [{ kind: 'Job', name: 'x', uid: 'x' }];
    expect(groupOf(notController)).toBeUndefined();
  });

  it('the first rule that names a run is the one', () => {
    const rules = [{ profiles: ['other'], failed: 1 }, { strategies: ['PodLifeTime'], failed: 2 }, { failed: 3 }];
    expect(ruleFor(rules, 'test', 'PodLifeTime')?.failed).toBe(2);
    expect(ruleFor(rules, 'other', 'PodLifeTime')?.failed).toBe(1);
    expect(ruleFor(rules, 'test', 'RemoveFailedPods')?.failed).toBe(3);
    expect(ruleFor(undefined, 'test', 'PodLifeTime')).toBeUndefined();
  });
});

describe('decide with kubeTidy.retention', () => {
  const ten = Array.from({ length: 10 }, (_, i) => done(`etl-28891-${i}`, 1000 - i * 10)); // pod 9 finished last

  it('ten failed pods of one Job with failed: 3 leave exactly the three newest, each explained', () => {
    const plan = decide(policyWith([{ failed: 3 }]), { pods: [...ten].reverse() }, NOW);
    expect(names(plan.kept)).toEqual(['etl-28891-7', 'etl-28891-8', 'etl-28891-9']);
    expect(plan.kept.find((k) => k.name === 'etl-28891-7')?.reason).toBe('3rd newest Failed of job batch/etl-28891, keep 3');
    expect(plan.kept.find((k) => k.name === 'etl-28891-9')?.reason).toBe('1st newest Failed of job batch/etl-28891, keep 3');
    // The rest in the strategy's order (PodLifeTime: oldest created first; equal ages by position).
    expect(plan.decisions.map((d) => d.name)).toHaveLength(7);
    expect(names(plan.decisions)).toEqual(
      ten
        .slice(0, 7)
        .map((p) => p.metadata.name)
        .sort(),
    );
  });

  it('counts Failed and Succeeded apart, and only the phases the rule names', () => {
    const ok = [done('ok-0', 50, { phase: 'Succeeded' }), done('ok-1', 40, { phase: 'Succeeded' })];
    const plan = decide(policyWith([{ failed: 1, succeeded: 1 }]), { pods: [...ten, ...ok] }, NOW);
    expect(names(plan.kept)).toEqual(['etl-28891-9', 'ok-1']);
    const onlyFailed = decide(policyWith([{ failed: 1 }]), { pods: [...ten, ...ok] }, NOW);
    expect(names(onlyFailed.kept)).toEqual(['etl-28891-9']);
  });

  it('a pod the strategy does not select still counts among the newest', () => {
    // Exit code 1 is not selected; it is the newest, so only two of the selected exit-3 pods stay.
    const pods = [done('new-exit1', 1, { exitCode: 1 }), ...[10, 20, 30, 40].map((s) => done(`exit3-${s}`, s, { exitCode: 3 }))];
    const plan = decide(policyWith([{ failed: 3 }], [{ name: 'PodLifeTime', args: { states: ['Failed'], exitCodes: [3] } }]), { pods }, NOW);
    expect(names(plan.kept)).toEqual(['exit3-10', 'exit3-20']);
    expect(names(plan.decisions)).toEqual(['exit3-30', 'exit3-40']);
  });

  it('pods without a controller owner, and pods of another owner, are not grouped with them', () => {
    const bare = pod('bare').inNamespace('batch').bare().failed().build();
    const other = done('other-0', 2000, { owner: 'other' });
    const plan = decide(policyWith([{ failed: 3 }]), { pods: [...ten, bare, other] }, NOW);
    expect(names(plan.kept.filter((k) => k.reason.includes('newest')))).toEqual(['etl-28891-7', 'etl-28891-8', 'etl-28891-9', 'other-0']);
    // (DefaultEvictor keeps the bare pod for its own reason: FailedBarePods.)
    expect(plan.kept.find((k) => k.name === 'bare')?.reason).not.toContain('newest');
  });

  it('a pod being deleted is not counted: it would make the ones staying fewer', () => {
    const going = done('going', 0);
    going.metadata.deletionTimestamp = iso(1);
    const index = new RetentionIndex();
    index.see(going);
    const plan = decide(policyWith([{ failed: 3 }]), { pods: ten }, NOW, { retention: index });
    expect(names(plan.kept)).toEqual(['etl-28891-7', 'etl-28891-8', 'etl-28891-9']);
  });

  it('pods of two Jobs of one CronJob are one group when the Jobs are known', () => {
    const a = [done('a-0', 100, { owner: 'etl-1' }), done('a-1', 90, { owner: 'etl-1' })];
    const b = [done('b-0', 80, { owner: 'etl-2' }), done('b-1', 70, { owner: 'etl-2' })];
    const cron = { kind: 'CronJob', name: 'etl', uid: 'cj-etl' };
    const index = new RetentionIndex(
      new Map([
        ['job-etl-1', cron],
        ['job-etl-2', cron],
      ]),
    );
    const policy = policyWith([{ failed: 2 }]);
    const plan = decide(policy, { pods: [...a, ...b] }, NOW, { retention: index });
    expect(names(plan.kept)).toEqual(['b-0', 'b-1']);
    expect(plan.kept.find((k) => k.name === 'b-0')?.reason).toBe('2nd newest Failed of cronjob batch/etl, keep 2');
    // Without the Jobs' owners each Job keeps its own two.
    expect(decide(policy, { pods: [...a, ...b] }, NOW).decisions).toEqual([]);
  });

  it('keeps before the limits: a kept pod spends none of maxNoOfPodsToEvictTotal', () => {
    const plan = decide(policyWith([{ failed: 3 }], undefined, { maxNoOfPodsToEvictTotal: 2 }), { pods: ten }, NOW);
    expect(plan.decisions).toHaveLength(2);
    expect(plan.kept.filter((k) => k.reason.startsWith('limit'))).toHaveLength(5);
  });

  it('applies to the runs a rule names only; another run may still take a pod a rule kept', () => {
    const plugins = [
      { name: 'PodLifeTime', args: { states: ['Failed'] } },
      { name: 'RemoveFailedPods', args: {} },
    ];
    const only = decide(policyWith([{ strategies: ['RemoveFailedPods'], failed: 3 }], plugins), { pods: ten }, NOW);
    expect(only.decisions.every((d) => d.strategy === 'PodLifeTime')).toBe(true);
    expect(only.decisions).toHaveLength(10);
    const first = decide(policyWith([{ strategies: ['PodLifeTime'], failed: 3 }], plugins), { pods: ten }, NOW);
    expect(first.decisions.filter((d) => d.strategy === 'RemoveFailedPods').map((d) => d.name)).toEqual(
      expect.arrayContaining(['etl-28891-7', 'etl-28891-8', 'etl-28891-9']),
    );
  });
});

// Random groups: a few owners, Failed and Succeeded pods finishing at random (often equal) seconds.
const arbGroupPods = fc
  .array(
    fc.record({
      owner: fc.constantFrom('a', 'b', 'c', 'bare'),
      phase: fc.constantFrom('Failed' as const, 'Succeeded' as const),
      secondsAgo: fc.integer({ min: 0, max: 30 }),
      exitCode: fc.constantFrom(1, 3),
    }),
    { maxLength: 40 },
  )
  .map((rs) =>
    rs.map((r, i) => {
      const p = done(`p${i}`, r.secondsAgo, { owner: r.owner, phase: r.phase, exitCode: r.exitCode });
      if (r.owner === 'bare') p.metadata.ownerReferences = [];
      return p;
    }),
  );
const arbRule = fc.record({ failed: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }), succeeded: fc.integer({ min: 0, max: 5 }) });
const PLUGINS = [
  { name: 'PodLifeTime', args: { states: ['Succeeded', 'Failed'] } },
  { name: 'RemoveFailedPods', args: {} },
];

/** `pods` cut into pages at `cuts`, the pages in an order `keys` shuffles (each page once). */
function paged(pods: Pod[], cuts: number[], keys: number[]): Pod[][] {
  const at = [...new Set(cuts.map((c) => c % (pods.length + 1)))].sort((x, y) => x - y);
  const pages: Pod[][] = [];
  let from = 0;
  for (const c of [...at, pods.length]) {
    pages.push(pods.slice(from, c));
    from = c;
  }
  return pages
    .map((page, i) => ({ page, k: keys[i % keys.length] ?? 0, i }))
    .sort((x, y) => x.k - y.k || x.i - y.i)
    .map((x) => x.page);
}

const indexOf = (pods: readonly Pod[]) => {
  const index = new RetentionIndex();
  for (const p of pods) index.see(p);
  return index;
};

describe('retention properties', () => {
  test.prop([arbGroupPods, arbRule, fc.integer({ min: 0, max: 5 }), fc.array(fc.nat(), { maxLength: 4 }), fc.array(fc.nat(), { minLength: 1, maxLength: 8 })])(
    'a pass over pages in any order keeps and removes what one decide over every pod does',
    (pods, rule, otherFailed, cuts, keys) => {
      // Two runs with different rules: the first run's kept pods are the second's to take.
      const policy = policyWith([{ strategies: ['RemoveFailedPods'], failed: otherFailed }, rule], PLUGINS);
      const whole = decide(policy, { pods }, NOW);
      const pass = new AcrossPages(policy);
      for (const page of paged(pods, cuts, keys)) pass.add(decide(policy, { pods: page }, NOW, pass.options), page);
      const finished = pass.finish();
      const key = (d: { uid: string; strategy: string }) => `${d.uid}/${d.strategy}`;
      expect(finished.decisions.map(key).sort()).toEqual(whole.decisions.map(key).sort());
      const byRetention = (ks: readonly { uid: string; strategy: string; reason: string }[]) =>
        new Set(ks.filter((k) => k.reason.includes('newest')).map((k) => `${key(k)}:${k.reason}`));
      expect(byRetention(finished.kept)).toEqual(byRetention(whole.kept));
    },
  );

  test.prop([arbGroupPods, arbRule, fc.array(fc.boolean(), { minLength: 40, maxLength: 40 })])(
    'missing siblings only ever keep more: what the event path removes seeing some, it removes seeing all',
    (pods, rule, seen) => {
      const policy = policyWith([rule], PLUGINS);
      const some = pods.filter((_, i) => seen[i]);
      for (const p of pods) {
        const partial = decide(policy, { pods: [p] }, NOW, { retention: indexOf(some) });
        const full = decide(policy, { pods: [p] }, NOW, { retention: indexOf(pods) });
        if (partial.decisions.length) expect(full.decisions.map((d) => d.uid)).toEqual([p.metadata.uid]);
      }
    },
  );
});
