import { describe, expect, it } from 'vitest';
import { ObjectRuleSchema, type ObjectRule } from '../../policy/objects-schema.js';
import { decideObjects } from './decide.js';
import { emptyContext, type ObjectContext, type StoredObject } from './model.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const ago = (s: number) => new Date(NOW - s * 1000).toISOString();
const rule = (r: Record<string, unknown>): ObjectRule => ObjectRuleSchema.parse({ name: 'r', minAge: '1h', ...r });

let n = 0;
function job(
  name: string,
  o: { done?: 'Complete' | 'Failed'; since?: number; ns?: string; owner?: [string, string]; labels?: Record<string, string> } = {},
): StoredObject {
  return {
    kind: 'Job',
    apiVersion: 'batch/v1',
    namespace: o.ns ?? 'ml',
    name,
    uid: `u-${name}-${n++}`,
    resourceVersion: '1',
    creationTimestamp: ago((o.since ?? 7200) + 60),
    ...(o.labels ? { labels: o.labels } : {}),
    ...(o.owner ? { ownerReferences: [{ apiVersion: 'batch/v1', kind: o.owner[0], name: o.owner[1], uid: `owner-${o.owner[1]}`, controller: true }] } : {}),
    conditions: o.done === undefined ? [] : [{ type: o.done, status: 'True', lastTransitionTime: ago(o.since ?? 7200) }],
  };
}

function claim(name: string, o: { unused?: boolean; since?: number; volume?: string; ns?: string } = {}): StoredObject {
  return {
    kind: 'PersistentVolumeClaim',
    apiVersion: 'v1',
    namespace: o.ns ?? 'ml',
    name,
    uid: `u-${name}`,
    resourceVersion: '1',
    ...(o.volume ? { volumeName: o.volume } : {}),
    conditions:
      o.unused === false
        ? [{ type: 'Unused', status: 'False', reason: 'PodUsingPVC', lastTransitionTime: ago(10) }]
        : [{ type: 'Unused', status: 'True', reason: 'NoPodsUsingPVC', lastTransitionTime: ago(o.since ?? 7200) }],
  };
}

const names = (xs: { name: string }[]) => xs.map((x) => x.name);
const decide = (rules: ObjectRule[], objects: StoredObject[], ctx: Partial<ObjectContext> = {}) =>
  decideObjects(rules, objects, { ...emptyContext(), ...ctx }, NOW);

describe('finished objects, by the condition their owner writes', () => {
  it('selects a Job Complete or Failed for at least minAge, oldest first; a running or young one is not, and the young one is due', () => {
    const plan = decide(
      [rule({ kind: 'Job' })],
      [job('young', { done: 'Complete', since: 600 }), job('failed', { done: 'Failed', since: 9000 }), job('done', { done: 'Complete' }), job('running')],
    );
    expect(names(plan.decisions)).toEqual(['failed', 'done']);
    expect(plan.decisions[0]).toMatchObject({
      mode: 'report',
      condition: 'Failed=True',
      reason: 'r: Failed=True for 2h (minAge 1h)',
      target: { kind: 'Job', name: 'failed' },
    });
    expect(plan.eligible.map((e) => [e.name, e.at])).toEqual([['young', NOW + 3000 * 1000]]);
  });

  it('takes namespaces, labels and the first matching rule in policy order', () => {
    const rules = [
      rule({ name: 'a', kind: 'Job', namespaces: { include: ['ml'] }, labelSelector: { matchLabels: { team: 'x' } }, mode: 'delete' }),
      rule({ name: 'b', kind: 'Job' }),
    ];
    const plan = decide(rules, [
      job('x', { done: 'Complete', labels: { team: 'x' } }),
      job('y', { done: 'Complete' }),
      job('z', { done: 'Complete', ns: 'other', labels: { team: 'x' } }),
    ]);
    expect(plan.decisions.map((d) => [d.name, d.rule, d.mode])).toEqual([
      ['x', 'a', 'delete'],
      ['y', 'b', 'report'],
      ['z', 'b', 'report'],
    ]);
  });

  it("keeps a CronJob's history as its controller would (successfulJobsHistoryLimit, failedJobsHistoryLimit), and keepLast per owner", () => {
    const cron = (name: string, done: 'Complete' | 'Failed', since: number) => job(name, { done, since, owner: ['CronJob', 'nightly'] });
    const jobs = [
      cron('c1', 'Complete', 4000),
      cron('c2', 'Complete', 5000),
      cron('c3', 'Complete', 6000),
      cron('f1', 'Failed', 4500),
      cron('f2', 'Failed', 7000),
    ];
    const cronJobs = new Map([['ml/nightly', { successful: 2, failed: 1 }]]);
    const plan = decide([rule({ kind: 'Job' })], jobs, { cronJobs });
    expect(names(plan.decisions)).toEqual(['f2', 'c3']);
    expect(plan.kept.find((k) => k.name === 'c1')?.reason).toBe("the newest 2 of CronJob nightly's history (successfulJobsHistoryLimit)");
    const last = decide([rule({ kind: 'Job', keepLast: 4 })], jobs, { cronJobs });
    expect(names(last.decisions)).toEqual(['f2']);
    expect(last.kept.find((k) => k.name === 'c3')?.reason).toBe('keepLast 4: among the newest of CronJob nightly');
  });

  it('keeps an object whose condition has no readable time, saying so', () => {
    const j = job('odd', { done: 'Complete' });
    j.conditions[0]!.lastTransitionTime = 'yesterday';
    const plan = decide([rule({ kind: 'Job' })], [j]);
    expect(plan.decisions).toEqual([]);
    expect(plan.kept[0]?.reason).toMatch(/no lastTransitionTime/);
  });

  it("removes a finished Workload's controller owner (kueue#14672), or the Workload when it has none", () => {
    const owned: StoredObject = {
      ...job('w1', { since: 7200, owner: ['JobSet', 'train'] }),
      kind: 'Workload',
      apiVersion: 'kueue.x-k8s.io/v1beta1',
      conditions: [{ type: 'Finished', status: 'True', reason: 'Succeeded', lastTransitionTime: ago(7200) }],
    };
    owned.ownerReferences![0]!.apiVersion = 'jobset.x-k8s.io/v1alpha2';
    const bare: StoredObject = { ...owned, name: 'w2', uid: 'w2', ownerReferences: [] };
    const plan = decide([rule({ kind: 'Workload' })], [owned, bare]);
    expect(plan.decisions.map((d) => d.target)).toEqual([
      { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: 'ml', name: 'train', uid: 'owner-train' },
      { apiVersion: 'kueue.x-k8s.io/v1beta1', kind: 'Workload', namespace: 'ml', name: 'w2', uid: 'w2' },
    ]);
  });
});

describe('unused claims: only the API server says unused, and nothing that still names a claim loses it', () => {
  const unused = (extra: Record<string, unknown> = {}) => rule({ kind: 'PersistentVolumeClaim', ...extra });

  it('selects a claim Unused/NoPodsUsingPVC for minAge; one in use (False) is not', () => {
    expect(names(decide([unused()], [claim('old'), claim('busy', { unused: false })]).decisions)).toEqual(['old']);
  });

  it.each([
    ['used by a Pending pod the snapshot shows', { podClaims: new Map([['ml/data', 'ml/trainer-0']]) }, 'used by pod ml/trainer-0, which is not finished'],
    ["named by a Deployment's or CronJob's pod template", { templateClaims: new Set(['ml/data']) }, "named by a workload's pod template"],
    [
      "a StatefulSet's volumeClaimTemplates (whenScaled Retain)",
      { statefulSets: [{ namespace: 'ml', name: 'db', replicas: 1, templates: ['data'], whenScaled: 'Retain' as const, whenDeleted: 'Retain' as const }] },
      "a claim of StatefulSet db's volumeClaimTemplates data (persistentVolumeClaimRetentionPolicy whenScaled Retain)",
    ],
  ])('keeps a claim %s', (_, ctx, reason) => {
    const name = 'statefulSets' in ctx ? 'data-db-3' : 'data';
    const plan = decide([unused()], [claim(name)], ctx);
    expect(plan.decisions).toEqual([]);
    expect(plan.kept[0]?.reason).toBe(reason);
  });

  it("lets a StatefulSet's claim above its replicas go when whenScaled is Delete", () => {
    const statefulSets = [{ namespace: 'ml', name: 'db', replicas: 2, templates: ['data'], whenScaled: 'Delete' as const, whenDeleted: 'Retain' as const }];
    expect(names(decide([unused()], [claim('data-db-1'), claim('data-db-2')], { statefulSets }).decisions)).toEqual(['data-db-2']);
  });

  it("deletes only where the bound volume's reclaim policy is one the rule accepts, and never when it cannot be read", () => {
    const rules = [unused({ mode: 'delete', reclaimPolicy: ['Delete'] })];
    const volumes = new Map([
      ['pv-a', 'Delete'],
      ['pv-b', 'Retain'],
    ]);
    const plan = decide(rules, [claim('a', { volume: 'pv-a' }), claim('b', { volume: 'pv-b' }), claim('c', { volume: 'pv-gone' }), claim('unbound')], {
      volumes,
    });
    expect(names(plan.decisions)).toEqual(['a', 'unbound']);
    expect(Object.fromEntries(plan.kept.map((k) => [k.name, k.reason]))).toEqual({
      b: "its volume pv-b has reclaim policy Retain, which the rule's reclaimPolicy does not accept",
      c: 'its volume pv-gone could not be read: its reclaim policy is unknown',
    });
  });
});

describe('the rules as written', () => {
  const issues = (r: Record<string, unknown>) => {
    const parsed = ObjectRuleSchema.safeParse({ name: 'r', minAge: '1h', ...r });
    return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  it('report first: a rule without mode removes nothing', () => {
    expect(ObjectRuleSchema.parse({ name: 'r', kind: 'Job', minAge: '0s' }).mode).toBe('report');
  });
  it.each([
    [{ kind: 'PersistentVolumeClaim', mode: 'delete' }, /^reclaimPolicy: deleting claims needs/],
    [{ kind: 'PersistentVolumeClaim', conditions: [{ type: 'Bound' }] }, /^conditions: a claim is selected only by the condition Unused/],
    [{ kind: 'Job', reclaimPolicy: ['Delete'] }, /^reclaimPolicy: only for kind PersistentVolumeClaim/],
    [{ kind: 'Job', minAge: 'soon' }, /^minAge: got "soon"/],
    [{ kind: 'Secret' }, /^kind: /],
    [{ kind: 'Job', name: 'Not A Label' }, /^name: a DNS label/],
  ])('refuses %j', (r, message) => {
    expect(issues(r)[0]).toMatch(message);
  });
});
