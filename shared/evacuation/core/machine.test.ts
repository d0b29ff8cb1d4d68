import { describe, expect, it } from 'vitest';
import { ANNOTATIONS, migrationName, readState, writeState } from './annotations.js';
import { admit, stale, type Slot } from './limits.js';
import { next, type MigrationView, type Observation, type Settings, type Step } from './machine.js';

const S: Settings = { timeoutMs: 600_000, maxAttempts: 3, backoffMs: 10_000, maxBackoffMs: 60_000, kubevirtMethod: 'eviction' };
const NOW = Date.parse('2026-03-01T12:00:00Z');
const UID = '11111111-2222-3333-4444-555555555555';
const iso = (ms: number) => new Date(ms).toISOString();

const started = (attempt = 1, startedAt = NOW - 60_000, migration?: string) =>
  writeState({ state: 'Started', attempt, startedAt, deadline: startedAt + S.timeoutMs, ...(migration ? { migration } : {}) }, 'kube-tidy') as Record<
    string,
    string
  >;
const clean = (a: Record<string, string | null>) => Object.fromEntries(Object.entries(a).filter(([, v]) => v !== null)) as Record<string, string>;
const req = { [ANNOTATIONS.request]: 'ops' };
const mig = (phase: string, recorded = true): MigrationView => ({ name: 'm1', phase, recorded });

function obs(annotations: Record<string, string>, extra: Partial<Observation> & { vmi?: string; phase?: string; deleting?: boolean } = {}): Observation {
  const { vmi, phase = 'Running', deleting = false, ...rest } = extra;
  return { pod: { uid: UID, node: 'n1', phase, deleting, annotations: clean(annotations), ...(vmi ? { vmi } : {}) }, now: NOW, ...rest };
}

const cases: [string, Observation, Partial<Settings>, Partial<Step> & { do: Step['do'] }][] = [
  ['a pod without a request is left alone', obs({}), {}, { do: 'none' }],
  ['a requested running pod starts attempt 1 with a deadline timeout later', obs(req), {}, { do: 'start' }],
  ['a terminal pod is not started even when requested', obs(req, { phase: 'Succeeded' }), {}, { do: 'none' }],
  [
    'a request-evict-only pod a strategy decided to evict starts, the strategy as requester',
    obs({ [ANNOTATIONS.requestEvictOnly]: '' }, { strategyRequest: 'strategy:PodLifeTime' }),
    {},
    { do: 'start', requestedBy: 'strategy:PodLifeTime' } as never,
  ],
  [
    'a launcher pod with the migration method gets its migration named from uid and attempt',
    obs(req, { vmi: 'vm1' }),
    { kubevirtMethod: 'migration' },
    { do: 'start' },
  ],
  ['a started attempt without a migration is driven again (resume after a crash)', obs({ ...req, ...started() }), {}, { do: 'drive' }],
  [
    'a migration found by its VMI is recorded first',
    obs({ ...req, ...started() }, { migration: mig('Running', false) }),
    {},
    { do: 'record', migration: 'm1' } as never,
  ],
  ['a running migration is waited for', obs({ ...req, ...started() }, { migration: mig('Running') }), {}, { do: 'wait' }],
  [
    'a succeeded migration ends the evacuation as Succeeded',
    obs({ ...req, ...started() }, { migration: mig('Succeeded') }),
    {},
    { do: 'end', outcome: 'Succeeded', abort: false },
  ],
  ['a gone pod ends it with nothing to write', { now: NOW }, {}, { do: 'end', outcome: 'Succeeded', write: false }],
  ['a terminating pod ends it with nothing to write', obs({ ...req, ...started() }, { deleting: true }), {}, { do: 'end', outcome: 'Succeeded', write: false }],
  ['a failed migration on attempt 1 of 3 backs off 10 s', obs({ ...req, ...started(1) }, { migration: mig('Failed') }), {}, { do: 'backoff' }],
  [
    'a failed migration on attempt 3 of 3 is final and reported',
    obs({ ...req, ...started(3) }, { migration: mig('Failed') }),
    {},
    { do: 'end', outcome: 'Failed', abort: false },
  ],
  ['a backoff not yet over waits', obs({ ...req, ...clean(writeState({ state: 'Backoff', attempt: 1, retryAt: NOW + 1 }, 'kube-tidy')) }), {}, { do: 'wait' }],
  [
    'a backoff that is over starts the next attempt',
    obs({ ...req, ...clean(writeState({ state: 'Backoff', attempt: 1, retryAt: NOW }, 'kube-tidy')) }),
    {},
    { do: 'start' },
  ],
  [
    'past the deadline a hanging migration is aborted',
    obs({ ...req, ...started(1, NOW - S.timeoutMs) }, { migration: mig('Running') }),
    {},
    { do: 'end', outcome: 'TimedOut', abort: true },
  ],
  [
    'past the deadline with no migration at all it times out without abort',
    obs({ ...req, ...started(1, NOW - S.timeoutMs) }),
    {},
    { do: 'end', outcome: 'TimedOut', abort: false },
  ],
  [
    'a migration that succeeded just past the deadline still counts as done',
    obs({ ...req, ...started(1, NOW - S.timeoutMs) }, { migration: mig('Succeeded') }),
    {},
    { do: 'end', outcome: 'Succeeded' },
  ],
  [
    'a withdrawn request cancels and aborts the running migration',
    obs(started(), { migration: mig('Scheduling') }),
    {},
    { do: 'end', outcome: 'Cancelled', abort: true },
  ],
  [
    'a withdrawn request during backoff cancels without abort',
    obs(clean(writeState({ state: 'Backoff', attempt: 1, retryAt: NOW + 1 }, 'kube-tidy'))),
    {},
    { do: 'end', outcome: 'Cancelled', abort: false },
  ],
  [
    'a hand-edited unreadable state times out at once instead of running forever',
    obs({ ...req, [ANNOTATIONS.state]: 'Started', [ANNOTATIONS.attempt]: 'x' }),
    {},
    { do: 'end', outcome: 'TimedOut' },
  ],
];

describe('evacuation state machine', () => {
  for (const [sentence, o, settings, want] of cases) {
    it(sentence, () => expect(next(o, { ...S, ...settings })).toMatchObject(want));
  }

  it('start records the attempt, when it started, the deadline and (direct) the migration name', () => {
    const step = next(obs(req, { vmi: 'vm1' }), { ...S, kubevirtMethod: 'migration' });
    expect(step).toMatchObject({ do: 'start', next: { attempt: 1, startedAt: NOW, deadline: NOW + S.timeoutMs, migration: migrationName(UID, 1) } });
    const stored = clean(writeState((step as Extract<Step, { do: 'start' }>).next, 'kube-tidy'));
    expect(stored).toMatchObject({
      [ANNOTATIONS.state]: 'Started',
      [ANNOTATIONS.attempt]: '1',
      [ANNOTATIONS.startedAt]: iso(NOW),
      [ANNOTATIONS.deadline]: iso(NOW + S.timeoutMs),
      [ANNOTATIONS.inProgress]: 'kube-tidy',
    });
    expect(readState(stored)).toEqual((step as Extract<Step, { do: 'start' }>).next);
  });

  it('backoff doubles per failure and is capped', () => {
    const at = (attempt: number) => next(obs({ ...req, ...started(attempt) }, { migration: mig('Failed') }), { ...S, maxAttempts: 9 });
    expect([1, 2, 3, 4].map((n) => (at(n) as Extract<Step, { do: 'backoff' }>).next.retryAt - NOW)).toEqual([10_000, 20_000, 40_000, 60_000]);
  });

  it('the migration name differs per attempt and per pod, and is a valid object name', () => {
    expect(migrationName(UID, 1)).not.toBe(migrationName(UID, 2));
    expect(migrationName(UID, 1)).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });

  it('ending clears every marker kube-tidy wrote', () => {
    expect(Object.values(writeState({ state: 'Idle' }, 'kube-tidy')).every((v) => v === null)).toBe(true);
  });
});

const slot = (uid: string, node: string, at = NOW): Slot => ({ uid, node, pod: `ns/${uid}`, at });

describe('limits per cluster and per node', () => {
  const limits = { perCluster: 5, perNode: 2 };
  const table: [string, Slot[], string, string, boolean][] = [
    ['the first evacuation is admitted', [], 'a', 'n1', true],
    ['a pod that already holds a slot is admitted again (idempotent)', [slot('a', 'n1'), slot('b', 'n1')], 'a', 'n1', true],
    ['a third evacuation from one node waits', [slot('a', 'n1'), slot('b', 'n1')], 'c', 'n1', false],
    ['another node still has room', [slot('a', 'n1'), slot('b', 'n1')], 'c', 'n2', true],
    ['a sixth evacuation in the cluster waits', ['a', 'b', 'c', 'd', 'e'].map((u, i) => slot(u, `n${i}`)), 'f', 'n9', false],
  ];
  for (const [sentence, slots, uid, node, ok] of table) it(sentence, () => expect(admit(slots, uid, node, limits).ok).toBe(ok));

  it('only old slots of pods not in flight are stale', () => {
    const slots = [slot('held', 'n1', NOW - 120_000), slot('young', 'n1', NOW - 1000), slot('old', 'n1', NOW - 120_000)];
    expect(stale(slots, new Set(['held']), NOW, 30_000).map((s) => s.uid)).toEqual(['old']);
  });
});
