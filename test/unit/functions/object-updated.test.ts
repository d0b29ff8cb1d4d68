// objectUpdated's answers that need no cluster: what it refuses before anything is read (a kind
// it never takes, a "Workload" of another group), a kind no rule names (nothing to do), an update whose copy no rule could
// match (a running Job: every Job is watched; it cancels no timer), and a delete, which only clears the object's timer. Its decisions on stored objects are proven on the real control plane
// (test/integration/objects/event-path.test.ts).
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { objectUpdated, type ObjectUpdatedParts } from '../../../functions/object-updated.js';
import type { ObjectEvent, Verb } from '../../../shared/cloudevents/index.js';
import { createLogger } from '../../../shared/log.js';
import { MetricsRecorder } from '../../../shared/metrics/recorder.js';
import { Notifier } from '../../../shared/notify/notifier.js';
import { ObjectsDue, ObjectsTick, type ObjectsHandle } from '../../../shared/objects/index.js';
import { ObjectRuleSchema } from '../../../shared/policy/objects-schema.js';
import { TtlRulesSchema, type TtlRule } from '../../../shared/policy/ttl-schema.js';
import { acceptedKinds, resolver, type ResolveContext } from '../../../shared/serve/resolve.js';

const rules = [ObjectRuleSchema.parse({ name: 'jobs', kind: 'Job', minAge: '1h' })];

/** A handle whose every cluster read fails the test: these answers must need none. */
function parts(policy: { ttl?: TtlRule[] } = {}): ObjectUpdatedParts {
  const untouchable = new Proxy({}, { get: () => () => Promise.reject(new Error('no cluster read expected')) });
  const handle = {
    settings: { protectedNamespaces: [], dryRun: false },
    policy: () => ({ objects: rules, ...policy }),
    reader: { core: untouchable, batch: untouchable, apps: untouchable, custom: untouchable, objectReads: untouchable },
    now: () => Date.now(),
    log: pino({ level: 'silent' }),
    metrics: MetricsRecorder.off(),
  } as unknown as ObjectsHandle;
  const due = new ObjectsDue(handle, { horizonMs: 3_600_000, timersMax: 10, list: { namespace: 'kube-tidy', shards: 4, capacity: 10 } });
  return { handle, due, tick: new ObjectsTick(due, { pollMs: 1_000, tickSenders: ['scheduler'] }), stop: () => due.stop() };
}

const ctx = (): ResolveContext => ({
  log: createLogger({ env: {}, destination: { write: () => undefined } }),
  deadlineMs: 5_000,
  dryRun: false,
  policyError: () => undefined,
  notifier: Notifier.off(),
  metrics: MetricsRecorder.off(),
});

const event = (apiVersion: string, kind: string, verb: Verb = 'update'): ObjectEvent => ({
  type: 'object',
  verb,
  object: { apiVersion, kind, metadata: { name: 'a', namespace: 'ml', uid: 'u1', resourceVersion: '7' } },
  origin: { bridge: 'knative-apiserversource', transport: 'plain' },
});

describe('objectUpdated, before anything is read', () => {
  it.each([
    {
      // A bridge's static Triggers send claim events whatever the policy: well-formed, answered, unread.
      sentence: 'a kind no object rule names is nothing to do, read nowhere (the policy names Job only)',
      e: event('v1', 'PersistentVolumeClaim'),
      status: 200,
      why: /"outcome":"nothing-to-do".*no kubeTidy.objects rule names PersistentVolumeClaim/,
    },
    { sentence: 'a kind it never takes is 422', e: event('v1', 'Pod'), status: 422, why: /takes Job, PersistentVolumeClaim, Workload events/ },
    { sentence: 'a Job of another group is 422', e: event('example.com/v1', 'Job'), status: 422, why: /takes Job of batch, not example\.com\/v1/ },
  ])('$sentence', async ({ e, status, why }) => {
    const out = await resolver(objectUpdated, parts(), ctx()).event(e);
    expect(out.status).toBe(status);
    expect(JSON.stringify(out.body)).toMatch(why);
  });

  it('the standalone watch is routed only the kinds a rule names; a bridge may send all three', () => {
    expect(objectUpdated.accepts.routes?.(parts())).toEqual(['Job']);
    expect(acceptedKinds(objectUpdated, parts())).toEqual(['Job', 'PersistentVolumeClaim', 'Workload']);
  });

  it("the kinds a ttl rule names are taken and routed too, a cluster-scoped kind's event without a namespace (its scope is discovery's)", () => {
    const ttl = TtlRulesSchema.parse([
      {
        name: 'previews',
        kinds: [
          { version: 'v1', kind: 'Namespace' },
          { group: 'apps', version: 'v1', kind: 'Deployment' },
        ],
      },
    ]);
    const p = parts({ ttl });
    expect(acceptedKinds(objectUpdated, p)).toEqual(['Job', 'PersistentVolumeClaim', 'Workload', 'Namespace', 'Deployment']);
    expect(objectUpdated.accepts.routes?.(p)).toEqual(['Job', 'Namespace', 'Deployment']);
    expect(objectUpdated.accepts.clusterScoped?.(p)).toEqual(['Namespace', 'Deployment']);
  });

  it('a Namespace event when no ttl rule names Namespace is refused for its missing namespace, as before', async () => {
    const e = event('v1', 'Namespace');
    const out = await resolver(objectUpdated, parts(), ctx()).event({
      ...e,
      object: { ...e.object, metadata: { name: 'a', uid: 'u1', resourceVersion: '7' } },
    } as ObjectEvent);
    expect(out.status).toBe(422);
  });

  it.each([
    { sentence: 'a sender DUE_TICK_SENDERS does not name', sender: 'someone' },
    { sentence: 'an unnamed sender (a request no sender check named)', sender: 'anonymous' },
  ])('a tick from $sentence is 403 as podTerminated says it, and reads nothing', async ({ sender }) => {
    const tick = { type: 'tick' as const, data: {}, origin: { bridge: 'knative-pingsource' as const, transport: 'plain' as const } };
    const out = await resolver(objectUpdated, parts(), ctx()).input({ type: 'tick', event: tick, sender });
    expect(out.status).toBe(403);
    expect(out.body.error).toBe(`sender "${sender}" may not tick objectUpdated (DUE_TICK_SENDERS names scheduler): nothing was read or done`);
  });

  const job = (status: unknown, labels?: unknown): ObjectEvent => {
    const e = event('batch/v1', 'Job');
    return { ...e, object: { ...e.object, metadata: { ...e.object.metadata, ...(labels ? { labels } : {}) }, status } } as ObjectEvent;
  };
  const complete = { conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] };

  it.each([
    { sentence: 'a running Job (no condition yet)', e: job({ active: 1 }) },
    { sentence: 'a Job whose only condition is one no rule names', e: job({ conditions: [{ type: 'Suspended', status: 'True' }] }) },
    { sentence: 'a Job with no status at all', e: job(undefined) },
  ])('$sentence: its copy matches no rule, so the update is nothing to do and reads nothing (every Job is watched)', async ({ e }) => {
    const p = parts();
    p.due.timers.arm({ kind: 'Job', namespace: 'ml', name: 'a', uid: 'u1', at: Date.now() + 60_000 });
    const out = await resolver(objectUpdated, p, ctx()).event(e);
    expect(out).toMatchObject({
      status: 200,
      body: { outcome: 'nothing-to-do', why: "no rule matches the event's copy (its conditions, labels or namespace): nothing read" },
    });
    // Stale (an update reordered after the one that finished it) or forged: it cancels nothing.
    expect(p.due.timers.size, 'a timer armed for it earlier stays (it re-reads when it fires)').toBe(1);
    p.stop();
  });

  it.each([
    { sentence: 'a finished Job: the stored object decides (a forged condition changes nothing)', e: job(complete) },
    { sentence: 'a copy whose conditions do not read as conditions: not a hint', e: job({ conditions: 'Complete' }) },
    { sentence: 'a copy whose labels are not strings: not a hint', e: job({ active: 1 }, { app: 3 }) },
  ])('$sentence, so the cluster is read (the object, or its namespace when a controller owns it)', async ({ e }) => {
    const out = await resolver(objectUpdated, parts(), ctx()).event(e);
    expect(JSON.stringify(out.body)).not.toContain("no rule matches the event's copy");
    expect(JSON.stringify(out.body)).toContain('no cluster read expected');
  });

  it("a delete clears the object's timer and reads nothing", async () => {
    const p = parts();
    p.due.timers.arm({ kind: 'Job', namespace: 'ml', name: 'a', uid: 'u1', at: Date.now() + 60_000 });
    expect(p.due.timers.size).toBe(1);
    const out = await resolver(objectUpdated, p, ctx()).event(event('batch/v1', 'Job', 'delete'));
    expect(out).toMatchObject({ status: 200, body: { outcome: 'nothing-to-do', why: 'already deleted' } });
    expect(p.due.timers.size).toBe(0);
    p.stop();
  });
});
