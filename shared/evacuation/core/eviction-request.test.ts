import { describe, expect, it } from 'vitest';
import { ANNOTATIONS, readState, writeState } from './annotations.js';
import { evictionRequestBody, evictionRequestName, evictionRequestView, requestLeftBehind, type Eviction, type EvictionRequest } from './eviction-request.js';
import { next, type Observation, type Settings, type Step } from './machine.js';
import { KUBEVIRT_RESPONDER, respond, respondersAfter, responderMigrationName, RESPONDER_DEFAULTS } from './responder.js';

const S: Settings = { timeoutMs: 600_000, maxAttempts: 3, backoffMs: 10_000, maxBackoffMs: 60_000, kubevirtMethod: 'eviction' };
const NOW = Date.parse('2026-03-01T12:00:00Z');
const UID = '11111111-2222-3333-4444-555555555555';
const iso = (ms: number) => new Date(ms).toISOString();

const er = (o: { generation?: number; observed?: number; conditions?: { type: string; status: string; reason?: string }[] } = {}): EvictionRequest => ({
  metadata: { name: evictionRequestName(UID, 1), generation: o.generation ?? 1 },
  spec: { target: { pod: { name: 'p', uid: UID } }, requester: 'kube-tidy.dev/evacuation', intent: 'Eviction' },
  ...(o.observed !== undefined || o.conditions
    ? { status: { ...(o.observed !== undefined ? { observedGeneration: o.observed } : {}), ...(o.conditions ? { conditions: o.conditions } : {}) } }
    : {}),
});

const ev = (
  state: string,
  responder: Partial<{ startTime: string; heartbeatTime: string; completionTime: string; message: string }> = { startTime: iso(NOW - 60_000) },
): Eviction => ({
  metadata: { name: 'e', uid: 'ev-uid', resourceVersion: '7' },
  spec: { target: { pod: { name: 'p', uid: UID } } },
  status: {
    targetResponders: [
      { name: KUBEVIRT_RESPONDER, priority: 10000, state },
      { name: 'imperative-eviction.k8s.io/evictor', priority: 100, state: 'Inactive' },
    ],
    responders: [{ name: KUBEVIRT_RESPONDER, ...responder }, { name: 'imperative-eviction.k8s.io/evictor' }],
  },
});

describe('the requester side: an EvictionRequest seen as the attempt', () => {
  it('is created with the pod uid, kube-tidy as requester and intent Eviction, under a name per pod and attempt', () => {
    const body = evictionRequestBody({
      namespace: 'ns',
      name: evictionRequestName(UID, 2),
      pod: { name: 'p', uid: UID },
      requester: 'kube-tidy.dev/evacuation',
    });
    expect(body.spec).toEqual({ target: { pod: { name: 'p', uid: UID } }, requester: 'kube-tidy.dev/evacuation', intent: 'Eviction' });
    expect(evictionRequestName(UID, 1)).not.toBe(evictionRequestName(UID, 2));
  });
  const table: [string, EvictionRequest, string][] = [
    ['not yet observed by a controller: new', er(), ''],
    ['observed, no condition: running', er({ observed: 1 }), 'Running'],
    ['TargetEvicted: succeeded', er({ observed: 1, conditions: [{ type: 'TargetEvicted', status: 'True', reason: 'PodDeleted' }] }), 'Succeeded'],
    ['Failed: failed', er({ observed: 1, conditions: [{ type: 'Failed', status: 'True', reason: 'NoFurtherResponder' }] }), 'Failed'],
    [
      'an old Failed condition on a spec the controller has not observed does not count',
      er({ generation: 2, observed: 1, conditions: [{ type: 'Failed', status: 'True' }] }),
      '',
    ],
  ];
  for (const [sentence, request, phase] of table) it(sentence, () => expect(evictionRequestView(request).phase).toBe(phase));

  it('a new attempt names its EvictionRequest when the API is used, and a migration name otherwise', () => {
    const obs = (evictionRequests: boolean) => ({
      now: NOW,
      evictionRequests,
      pod: { uid: UID, node: 'n1', phase: 'Running', deleting: false, vmi: 'vm', annotations: { [ANNOTATIONS.request]: 'ops' } },
    });
    expect(next(obs(true), { ...S, kubevirtMethod: 'migration' })).toMatchObject({ do: 'start', next: { evictionRequest: evictionRequestName(UID, 1) } });
    expect(next(obs(true), { ...S, kubevirtMethod: 'migration' })).not.toHaveProperty('next.migration');
    expect(next(obs(false), { ...S, kubevirtMethod: 'migration' })).not.toHaveProperty('next.evictionRequest');
    const stored = writeState({ state: 'Started', attempt: 1, startedAt: NOW, deadline: NOW + 1, evictionRequest: 'x' }, 'kube-tidy');
    expect(readState(stored as Record<string, string>)).toMatchObject({ evictionRequest: 'x' });
  });

  it('the machine ends, backs off and waits on the EvictionRequest as on a migration, and says what it read', () => {
    const annotations = {
      [ANNOTATIONS.request]: 'ops',
      ...(writeState(
        { state: 'Started', attempt: 1, startedAt: NOW - 1000, deadline: NOW + 600_000, evictionRequest: evictionRequestName(UID, 1) },
        'kube-tidy',
      ) as Record<string, string>),
    };
    const pod = { uid: UID, phase: 'Running', deleting: false, annotations };
    const at = (m: ReturnType<typeof evictionRequestView>) => next({ now: NOW, pod, migration: m }, S);
    expect(at(evictionRequestView(er({ observed: 1, conditions: [{ type: 'TargetEvicted', status: 'True', reason: 'PodDeleted' }] })))).toMatchObject({
      do: 'end',
      outcome: 'Succeeded',
      why: expect.stringContaining('TargetEvicted (PodDeleted)'),
    });
    expect(at(evictionRequestView(er({ observed: 1, conditions: [{ type: 'Failed', status: 'True', reason: 'NoFurtherResponder' }] })))).toMatchObject({
      do: 'backoff',
    });
    expect(at(evictionRequestView(er()))).toMatchObject({ do: 'wait', why: expect.stringContaining('not yet observed') });
    expect(next({ now: NOW + 600_000, pod, migration: evictionRequestView(er()) }, S)).toMatchObject({ do: 'end', outcome: 'TimedOut', abort: true });
    const withdrawn = { ...pod, annotations: { ...annotations, [ANNOTATIONS.request]: '' } };
    expect(next({ now: NOW, pod: withdrawn, migration: evictionRequestView(er({ observed: 1 })) }, S)).toMatchObject({
      do: 'end',
      outcome: 'Cancelled',
      abort: true,
    });
  });
});

describe('falling back when no controller answers an EvictionRequest', () => {
  const A: Settings = { ...S, requestAnswerMs: 30_000 };
  const name = evictionRequestName(UID, 1);
  const asked = (startedAt: number, extra: Record<string, string> = {}) => ({
    [ANNOTATIONS.request]: 'ops',
    ...(writeState({ state: 'Started', attempt: 1, startedAt, deadline: startedAt + S.timeoutMs, evictionRequest: name }, 'kube-tidy') as Record<
      string,
      string
    >),
    ...extra,
  });
  const at = (annotations: Record<string, string>, o: Partial<Observation> & { vmi?: string } = {}, s: Settings = A) => {
    const { vmi, ...rest } = o;
    return next({ now: NOW, evictionRequests: true, pod: { uid: UID, phase: 'Running', deleting: false, annotations, ...(vmi ? { vmi } : {}) }, ...rest }, s);
  };
  const evWith = (states: string[], conditions: { type: string; status: string }[] = []): Eviction => ({
    metadata: { name: 'e', uid: 'e-uid' },
    spec: { target: { pod: { name: 'p', uid: UID } } },
    status: { targetResponders: states.map((state, i) => ({ name: `r${i}.io/x`, priority: 100 + i, state })), conditions },
  });

  const cases: [string, Partial<Observation>, Step['do']][] = [
    ['no Eviction after 30 s: falls back', { migration: evictionRequestView(er()) }, 'fallback'],
    ['its EvictionRequest not even there after 30 s: falls back', {}, 'fallback'],
    [
      'an Eviction whose responders are all still Inactive is no answer: falls back',
      { migration: evictionRequestView(er({ observed: 1 }), evWith(['Inactive', 'Inactive'])) },
      'fallback',
    ],
    ['a responder Active: waits for it, however long', { migration: evictionRequestView(er({ observed: 1 }), evWith(['Active', 'Inactive'])) }, 'wait'],
    ['a responder that was Active and handed over: waits', { migration: evictionRequestView(er({ observed: 1 }), evWith(['Completed', 'Active'])) }, 'wait'],
    [
      'the request ended Failed: backs off as before, no fallback',
      { migration: evictionRequestView(er({ observed: 1, conditions: [{ type: 'Failed', status: 'True', reason: 'NoFurtherResponder' }] })) },
      'backoff',
    ],
  ];
  for (const [sentence, o, want] of cases) it(sentence, () => expect(at(asked(NOW - 30_000), o).do).toBe(want));

  it('within the bound it waits; without a bound it waits until the deadline', () => {
    expect(at(asked(NOW - 29_999), { migration: evictionRequestView(er()) }).do).toBe('wait');
    expect(at(asked(NOW - 599_999), { migration: evictionRequestView(er()) }, S).do).toBe('wait');
  });

  it('past both the bound and the deadline (sparse ticks) it still falls back instead of timing out', () => {
    expect(at(asked(NOW - 700_000), { migration: evictionRequestView(er()) }).do).toBe('fallback');
  });

  it('withdraws the request and keeps the attempt on the direct path, with a deadline of its own and the reason recorded', () => {
    const step = at(asked(NOW - 30_000), { migration: evictionRequestView(er()) }) as Extract<Step, { do: 'fallback' }>;
    expect(step).toMatchObject({ do: 'fallback', withdraw: name, next: { state: 'Started', attempt: 1, startedAt: NOW, deadline: NOW + S.timeoutMs } });
    expect(step.next).not.toHaveProperty('evictionRequest');
    expect(step.next.fallback).toBe(
      `no EvictionRequest controller answered within 30 s; withdrew EvictionRequest ${name} and evicted directly through the Eviction API`,
    );
    expect(step.why).toContain(step.next.fallback);
    const stored = writeState(step.next, 'kube-tidy') as Record<string, string>;
    expect(stored[ANNOTATIONS.fallback]).toBe(step.next.fallback);
    expect(stored[ANNOTATIONS.evictionRequest]).toBeNull();
    // With KubeVirt's migration method the direct path is a migration of kube-tidy's own.
    const vm = at(asked(NOW - 30_000), { vmi: 'vm' }, { ...A, kubevirtMethod: 'migration' }) as Extract<Step, { do: 'fallback' }>;
    expect(vm.next).toMatchObject({ migration: expect.stringContaining(UID) });
    expect(vm.next.fallback).toMatch(/migrated directly/);
  });

  it('once: a fallen-back attempt is never asked through a request again, not after a restart, nor on its next attempt', () => {
    const step = at(asked(NOW - 30_000)) as Extract<Step, { do: 'fallback' }>;
    const after = { [ANNOTATIONS.request]: 'ops', ...(writeState(step.next, 'kube-tidy') as Record<string, string>) };
    const clean = Object.fromEntries(Object.entries(after).filter(([, v]) => v !== null)) as Record<string, string>;
    // The next pass (any instance) drives the direct path, even long after the bound.
    expect(next({ now: NOW + 60_000, evictionRequests: true, pod: { uid: UID, phase: 'Running', deleting: false, annotations: clean } }, A)).toMatchObject({
      do: 'drive',
    });
    // It fails: the backoff keeps the reason, and attempt 2 starts on the direct path.
    const failed = next(
      {
        now: NOW + 60_000,
        evictionRequests: true,
        pod: { uid: UID, phase: 'Running', deleting: false, vmi: 'vm', annotations: clean },
        migration: { name: 'm', phase: 'Failed', recorded: true },
      },
      A,
    ) as Extract<Step, { do: 'backoff' }>;
    expect(failed).toMatchObject({ do: 'backoff', next: { fallback: step.next.fallback } });
    const backoff = Object.fromEntries(
      Object.entries({ [ANNOTATIONS.request]: 'ops', ...writeState(failed.next, 'kube-tidy') }).filter(([, v]) => v !== null),
    ) as Record<string, string>;
    expect(readState(backoff)).toMatchObject({ state: 'Backoff', fallback: step.next.fallback });
    const second = next(
      { now: failed.next.retryAt, evictionRequests: true, pod: { uid: UID, phase: 'Running', deleting: false, annotations: backoff } },
      A,
    ) as Extract<Step, { do: 'start' }>;
    expect(second).toMatchObject({ do: 'start', next: { attempt: 2, fallback: step.next.fallback } });
    expect(second.next).not.toHaveProperty('evictionRequest');
  });

  it('a new evacuation after the end asks through a request again (the reason is cleared with the rest)', () => {
    const ended = writeState({ state: 'Idle' }, 'kube-tidy');
    expect(ended[ANNOTATIONS.fallback]).toBeNull();
  });
});

describe('the responder side: kube-tidy.dev/kubevirt', () => {
  const vm = { vmi: 'vm' };
  const cases: [string, Eviction, Parameters<typeof respond>[0]['pod'], { phase: string } | undefined, string][] = [
    ['Inactive: waits its turn', ev('Inactive', {}), vm, undefined, 'none'],
    ['Active without a migration: starts one', ev('Active'), vm, undefined, 'start'],
    ['Active, migration Succeeded: completes (even though KubeVirt deleted the pod)', ev('Active'), undefined, { phase: 'Succeeded' }, 'complete'],
    ['Active, migration Failed: completes and hands over', ev('Active'), vm, { phase: 'Failed' }, 'complete'],
    ['Active, not a launcher pod: completes, nothing to migrate', ev('Active'), {}, undefined, 'complete'],
    ['Active, the pod gone: completes', ev('Active'), undefined, undefined, 'complete'],
    [
      'Active, running, heartbeat 1 min old: heartbeat',
      ev('Active', { startTime: iso(NOW - 120_000), heartbeatTime: iso(NOW - 60_000), message: 'live migration x is Running' }),
      vm,
      { phase: 'Running' },
      'heartbeat',
    ],
    [
      'Active, running, heartbeat 5 s old, same message: nothing',
      ev('Active', {
        startTime: iso(NOW - 120_000),
        heartbeatTime: iso(NOW - 5_000),
        message: `live migration ${responderMigrationName('ev-uid')} is Running`,
      }),
      vm,
      { phase: 'Running' },
      'none',
    ],
    [
      'Active, a new phase 5 s after the last heartbeat: not yet (20 s minimum)',
      ev('Active', { startTime: iso(NOW - 120_000), heartbeatTime: iso(NOW - 5_000), message: 'old' }),
      vm,
      { phase: 'Running' },
      'none',
    ],
    [
      'Active, a new phase 25 s after the last heartbeat: reported',
      ev('Active', { startTime: iso(NOW - 120_000), heartbeatTime: iso(NOW - 25_000), message: 'old' }),
      vm,
      { phase: 'Running' },
      'heartbeat',
    ],
    [
      'Active, completion already reported: nothing',
      ev('Active', { startTime: iso(NOW - 1000), completionTime: iso(NOW - 500) }),
      vm,
      { phase: 'Succeeded' },
      'none',
    ],
    ['Canceled with the migration running: abort', ev('Canceled'), vm, { phase: 'Running' }, 'abort'],
    ['Canceled after the migration ended: nothing', ev('Canceled'), vm, { phase: 'Succeeded' }, 'none'],
    ['Interrupted: no action (types.go)', ev('Interrupted'), vm, { phase: 'Running' }, 'none'],
  ];
  for (const [sentence, e, pod, migration, want] of cases) {
    it(sentence, () =>
      expect(
        respond({ eviction: e, name: KUBEVIRT_RESPONDER, ...(pod ? { pod } : {}), ...(migration ? { migration } : {}), now: NOW }, RESPONDER_DEFAULTS).do,
      ).toBe(want),
    );
  }
  it('writes only its own entry: heartbeat and message, completionTime on completion', () => {
    const e = ev('Active');
    const after = respondersAfter(e, KUBEVIRT_RESPONDER, { do: 'complete', message: 'done', why: '' }, NOW);
    expect(after[0]).toMatchObject({ heartbeatTime: '2026-03-01T12:00:00Z', completionTime: '2026-03-01T12:00:00Z', message: 'done' });
    expect(after[1]).toEqual(e.status!.responders![1]);
  });
});

describe('collecting kube-tidy’s EvictionRequests left behind', () => {
  const eviction = (conditions: { type: string; status: string }[]): Eviction => ({
    metadata: { name: 'e', uid: 'e-uid' },
    spec: { target: { pod: { name: 'p', uid: 'u' } } },
    status: { conditions },
  });
  it('never while the pod (that uid) is there, whatever the Eviction says', () => {
    expect(requestLeftBehind(true, undefined)).toBe(false);
    expect(requestLeftBehind(true, eviction([{ type: 'TargetEvicted', status: 'True' }]))).toBe(false);
  });
  it('the pod gone: when no Eviction is at work, none or ended TargetEvicted/Failed', () => {
    expect(requestLeftBehind(false, undefined)).toBe(true);
    expect(requestLeftBehind(false, eviction([{ type: 'TargetEvicted', status: 'True' }]))).toBe(true);
    expect(requestLeftBehind(false, eviction([{ type: 'Failed', status: 'True' }]))).toBe(true);
  });
  it('the pod gone but a responder still at work (no final condition, or one not True): kept, deleting would cancel it', () => {
    expect(requestLeftBehind(false, eviction([]))).toBe(false);
    expect(requestLeftBehind(false, eviction([{ type: 'TargetEvicted', status: 'False' }]))).toBe(false);
  });
});
