import { beforeEach, describe, expect, it } from 'vitest';
import { outSchemas, schemaFiles } from '../../test/fixtures/events/out-schemas.js';
import type { Decision } from '../selection/decision.js';
import { cascaded, defragStepped, evacuationWritten, orphanDone, orphanSweepCompleted } from './families.js';
import { Notifier } from './notifier.js';
import { objectDecided, type ObjectResultSaid } from './objects.js';
import { passEvents, podDecided } from './pods.js';
import { DATA_TYPES, dataschemaOf, EVENT_PREFIX, OBJECT_OUTCOMES, POD_OUTCOMES, podType, TYPES, type OutEvent } from './types.js';
import { ANNOTATIONS } from '../evacuation/core/annotations.js';

// Every kind of event the code can produce, built by the hooks the code calls, checked against
// the schema its dataschema names (schemas/events/, JSON Schema 2020-12).

let sent: OutEvent[] = [];
let n: Notifier;
beforeEach(() => {
  sent = [];
  n = Notifier.fromEnv({ EVENTS_SINK: 'http://127.0.0.1:9/', EVENTS_BATCH_SIZE: '2' }, Date.now, async (e) => void sent.push(e));
});
const settle = () => new Promise((r) => setTimeout(r, 20));

const decision = (name: string, over: Partial<Decision> = {}): Decision => ({
  namespace: 'ml',
  name,
  uid: `uid-${name}`,
  node: 'node-1',
  profile: 'default',
  strategy: 'RemoveFailedPods',
  action: 'delete',
  reason: 'Failed with exit code 3',
  ...over,
});

function objectResult(
  name: string,
  outcome: ObjectResultSaid['outcome'],
  o: { message?: string; dryRun?: boolean; workload?: boolean } = {},
): ObjectResultSaid {
  const self = { apiVersion: 'batch/v1', kind: 'Job', namespace: 'ml', name, uid: `uid-${name}` };
  return {
    decision: {
      kind: o.workload ? 'Workload' : 'Job',
      namespace: 'ml',
      name,
      uid: `uid-${name}`,
      rule: 'finished-jobs',
      mode: outcome === 'reported' ? 'report' : 'delete',
      condition: 'Complete=True',
      since: Date.parse('2026-11-27T12:00:00Z'),
      reason: 'finished-jobs: Complete=True for 1d (minAge 1h)',
      target: o.workload ? { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: 'ml', name: 'train', uid: 'owner' } : self,
    },
    outcome,
    dryRun: o.dryRun ?? false,
    ...(o.message ? { message: o.message } : {}),
  };
}

const schemas = outSchemas();

describe('the event schemas', () => {
  it('one file per data type, each a 2020-12 schema whose $id is the dataschema events name', () => {
    const files = schemaFiles();
    expect(files.map((f) => f.file).sort()).toEqual(DATA_TYPES.map((t) => `${t}.v1.json`).sort());
    for (const { file, schema } of files) {
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$id).toBe(dataschemaOf(file.replace('.v1.json', '') as (typeof DATA_TYPES)[number]));
    }
  });

  it('every type is under one prefix and versioned', () => {
    for (const t of [...POD_OUTCOMES.map(podType), ...Object.values(TYPES)]) expect(t).toMatch(/^dev\.kube-tidy\.[a-z.-]+\.v1$/);
    expect(EVENT_PREFIX).toBe('dev.kube-tidy.');
  });

  it('every kind of event the hooks build is valid against its schema', async () => {
    // A pod decision of every outcome, from the event path and a shard.
    for (const outcome of POD_OUTCOMES)
      podDecided(
        n,
        decision(`p-${outcome}`),
        { action: 'delete', outcome, dryRun: false, ...(outcome === 'deleted' ? {} : { message: `said ${outcome}` }) },
        'event',
      );
    podDecided(n, decision('s', { node: undefined, action: 'evict' }), { action: 'evict', outcome: 'evicted', dryRun: true }, 'shard', 'pass-1');
    // One a due tick acted on at its eligibility.
    podDecided(n, decision('t'), { action: 'delete', outcome: 'deleted', dryRun: false }, 'event', undefined, { at: '2026-11-28T12:00:20.000Z', by: 'tick' });
    // A pass: 1 single, then batches of 2, then its summary.
    const pass = passEvents(n, 'sweep', 'pass-2', 1)!;
    for (const n of ['a', 'b', 'c', 'd']) pass.decided(decision(n), { action: 'delete', outcome: 'deleted', dryRun: false });
    pass.completed({
      dryRun: false,
      outcome: 'complete',
      durationMs: 12,
      failures: { transient: 0, refused: 0 },
      counts: { pages: 1, outcomes: { deleted: 4 } },
    });
    cascaded(n, { worker: 'w1', kind: 'batch/Job', namespace: 'ml', name: 'j', outcome: 'deleted', why: 'deleted', dryRun: false }, 'jobs');
    orphanDone(
      n,
      Object.assign(
        {
          worker: 'w1',
          apiVersion: 'v1',
          kind: 'Pod',
          namespace: 'ml',
          name: 'o',
          uid: 'u',
          action: 'delete',
          result: 'deleted',
          outsideBudgets: 'why',
          reason: 'r',
          dryRun: false,
        },
        { resourceVersion: '5' },
      ),
      'pods',
    );
    orphanSweepCompleted(n, { dryRun: false, outcome: 'swept', counts: { workers: { w1: { deleted: 1 } } }, failures: { transient: 0, refused: 0 } });
    const before = { [ANNOTATIONS.state]: 'Started', [ANNOTATIONS.attempt]: '1' };
    evacuationWritten(n, {
      namespace: 'ml',
      name: 'vm',
      uid: 'u',
      before: {},
      set: { [ANNOTATIONS.state]: 'Started', [ANNOTATIONS.attempt]: '1' },
      dryRun: false,
    });
    evacuationWritten(n, {
      namespace: 'ml',
      name: 'vm',
      uid: 'u',
      before,
      set: { [ANNOTATIONS.state]: 'Backoff', [ANNOTATIONS.retryAt]: '2026-01-01T00:00:00Z' },
      dryRun: false,
    });
    evacuationWritten(n, {
      namespace: 'ml',
      name: 'vm',
      uid: 'u',
      before,
      set: { [ANNOTATIONS.state]: null, [ANNOTATIONS.result]: 'Succeeded at t: done' },
      dryRun: false,
    });
    const move = {
      step: 1,
      pod: { namespace: 'ml', name: 'p', uid: 'u' },
      owner: { kind: 'ReplicaSet', name: 'r', uid: 'o' },
      from: 'n1',
      to: 'n2',
      frees: 'n1',
      reason: 'frees n1',
    };
    defragStepped(n, { outcome: 'evicted', move, plan: { moves: 3 }, verified: { pod: 'ml/q', expected: 'n2', landed: 'n2', asPlanned: true } }, false);
    defragStepped(n, { outcome: 'converged', plan: { moves: 0 }, nodesFreed: 1 }, false);
    // An object decision of every outcome, a Job's and a Workload's (its owner the target), from every origin.
    const origins = ['sweep', 'invoke', 'cli', 'event', 'due'] as const;
    OBJECT_OUTCOMES.forEach((outcome, i) =>
      objectDecided(n, objectResult(`j-${outcome}`, outcome, i % 2 === 0 ? {} : { message: `said ${outcome}` }), origins[i % origins.length]!),
    );
    objectDecided(n, objectResult('w', 'deleted', { dryRun: true, workload: true }), 'sweep');
    // A ttl rule's decisions (TTL on any kind): a Namespace, and a cluster-scoped kind outside any namespace.
    const ttl = {
      rule: 'previews',
      condition: 'expired',
      reason: 'previews: expired at 2026-11-27T12:00:00.000Z, from annotation janitor/ttl (2h after creation)',
    };
    const preview = { apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'preview-1', uid: 'uid-ns' };
    objectDecided(
      n,
      {
        ...objectResult('preview-1', 'deleted'),
        decision: { ...objectResult('preview-1', 'deleted').decision, ...ttl, kind: 'Namespace', namespace: 'preview-1', target: preview },
      },
      'sweep',
    );
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', namespace: '', name: 'old-role', uid: 'uid-role' };
    objectDecided(
      n,
      {
        ...objectResult('old-role', 'reported'),
        decision: { ...objectResult('old-role', 'reported').decision, ...ttl, kind: 'ClusterRole', namespace: '', target: role },
      },
      'cli',
    );
    await settle();

    const types = new Set(sent.map((e) => e.type));
    for (const t of [...POD_OUTCOMES.map(podType), ...Object.values(TYPES)]) expect(types, t).toContain(t);
    for (const e of sent) expect(schemas.check(e.dataschema, e.data), `${e.type} ${JSON.stringify(e.data)}`).toEqual([]);
    expect(sent.filter((e) => e.type === TYPES.evacuation).map((e) => [(e.data as { from: string }).from, (e.data as { to: string }).to])).toEqual([
      ['Idle', 'Started'],
      ['Started', 'Backoff'],
      ['Started', 'Idle'],
    ]);
  });

  it('a schema refuses what it does not describe (the check can fail)', () => {
    const e = dataschemaOf('pod-decision');
    expect(schemas.check(e, { namespace: 'ml' })).not.toEqual([]);
    expect(
      schemas.check(e, {
        namespace: 'ml',
        name: 'a',
        uid: 'u',
        strategy: 's',
        profile: 'p',
        reason: 'r',
        action: 'delete',
        outcome: 'vanished',
        dryRun: false,
        origin: 'event',
      }),
    ).not.toEqual([]);
    expect(schemas.check(dataschemaOf('pods-decided'), { origin: 'sweep', pass: 'x', dryRun: false, batch: 1, decisions: [{ name: 'a' }] })).not.toEqual([]);
    const object = { kind: 'Job', namespace: 'ml', name: 'j', uid: 'u', rule: 'r', mode: 'report', outcome: 'reported', condition: 'Complete=True' };
    const whole = { ...object, since: '2026-11-27T12:00:00.000Z', reason: 'r', dryRun: false, origin: 'sweep' };
    const target = { apiVersion: 'batch/v1', kind: 'Job', namespace: 'ml', name: 'j', uid: 'u' };
    expect(schemas.check(dataschemaOf('object-decision'), { ...whole, target })).toEqual([]);
    expect(schemas.check(dataschemaOf('object-decision'), { ...whole, target, outcome: 'vanished' })).not.toEqual([]);
    // Any Kind a ttl rule names is one; a resource's plural is not.
    expect(schemas.check(dataschemaOf('object-decision'), { ...whole, target, kind: 'secrets' })).not.toEqual([]);
    expect(schemas.check(dataschemaOf('object-decision'), whole)).not.toEqual([]);
  });
});
