import { describe, expect, it } from 'vitest';
import { ANNOTATIONS, migrationName, writeState, type RunState } from './annotations.js';
import { decide } from './decide.js';
import type { Effect } from './effects.js';
import { evictionRequestName, POD_UID_LABEL, type Eviction } from './eviction-request.js';
import type { MigrationView, Observation, Settings } from './machine.js';
import { answer, EVICTION_UID_LABEL, KUBEVIRT_RESPONDER, RESPONDER_DEFAULTS, respondersAfter, responderMigrationName } from './responder.js';

const S: Settings = { timeoutMs: 600_000, maxAttempts: 3, backoffMs: 10_000, maxBackoffMs: 60_000, kubevirtMethod: 'eviction', requestAnswerMs: 30_000 };
const NOW = Date.parse('2026-03-01T12:00:00Z');
const UID = '11111111-2222-3333-4444-555555555555';
const H = 'kube-tidy';
const iso = (ms: number) => new Date(ms).toISOString();
const req = { [ANNOTATIONS.request]: 'ops' };
const stored = (s: RunState) => Object.fromEntries(Object.entries(writeState(s, H)).filter(([, v]) => v !== null)) as Record<string, string>;
const started = ({ startedAt = NOW - 60_000, ...o }: Partial<Extract<RunState, { state: 'Started' }>> = {}) =>
  stored({ state: 'Started', attempt: 1, startedAt, deadline: startedAt + S.timeoutMs, ...o });

function obs(annotations: Record<string, string>, o: Partial<Observation> & { vmi?: string } = {}): Observation {
  const { vmi, ...rest } = o;
  return { now: NOW, pod: { uid: UID, node: 'n1', phase: 'Running', deleting: false, annotations, ...(vmi ? { vmi } : {}) }, ...rest };
}
const mig = (phase: string, name = 'm1'): MigrationView => ({ name, phase, recorded: true });
/** What ending writes on the pod. */
const ended = (result: string) => ({ ...writeState({ state: 'Idle' }, H), [ANNOTATIONS.request]: null, [ANNOTATIONS.result]: `${result}` });

describe('one pass decided as effects, in order', () => {
  it('a request starts through the Eviction API: slot, Started state, evict, the answer from the eviction', () => {
    const next = { state: 'Started', attempt: 1, startedAt: NOW, deadline: NOW + S.timeoutMs } as const;
    expect(decide(obs(req), S, H)).toEqual<Effect[]>([
      { do: 'take-slot', uid: UID, node: 'n1', at: NOW, attempt: 1 },
      { do: 'annotate', set: writeState(next, H), gone: 'decide-again' },
      { do: 'evict' },
      { do: 'answer', driven: true, why: '', attempt: 1 },
    ]);
  });

  it("charged to the policy's limits (EVACUATION_CHARGE_BUDGETS), the first start asks the admission port before the slot", () => {
    const charged = { ...S, chargeBudgets: true };
    expect(decide(obs(req), charged, H).map((e) => e.do)).toEqual(['admit', 'take-slot', 'annotate', 'evict', 'answer']);
    // A later attempt retries the same evacuation, charged once already.
    const backedOff = stored({ state: 'Backoff', attempt: 1, retryAt: NOW - 1 });
    expect(decide(obs({ ...req, ...backedOff }), charged, H).map((e) => e.do)).toEqual(['take-slot', 'annotate', 'evict', 'answer']);
    // Pod cleanup's and defrag's requests were charged when they asked for them.
    for (const by of ['strategy:PodLifeTime', 'defrag'])
      expect(decide(obs({ [ANNOTATIONS.request]: by }), charged, H).map((e) => e.do)).toEqual(['take-slot', 'annotate', 'evict', 'answer']);
    // Not charged by default.
    expect(decide(obs(req), S, H).map((e) => e.do)).not.toContain('admit');
  });

  it('a strategy’s request on a request-evict-only pod is written as the request with the Started state', () => {
    const effects = decide(obs({ [ANNOTATIONS.requestEvictOnly]: '' }, { strategyRequest: 'strategy:PodLifeTime' }), S, H);
    expect(effects[1]).toMatchObject({ do: 'annotate', set: { [ANNOTATIONS.request]: 'strategy:PodLifeTime', [ANNOTATIONS.state]: 'Started' } });
  });

  it('a launcher pod with the migration method starts a migration of our own, named from uid and attempt', () => {
    const name = migrationName(UID, 1);
    const next = { state: 'Started', attempt: 1, startedAt: NOW, deadline: NOW + S.timeoutMs, migration: name } as const;
    expect(decide(obs(req, { vmi: 'vm1' }), { ...S, kubevirtMethod: 'migration' }, H)).toEqual<Effect[]>([
      { do: 'take-slot', uid: UID, node: 'n1', at: NOW, attempt: 1 },
      { do: 'annotate', set: writeState(next, H), gone: 'decide-again' },
      { do: 'create-migration', name, vmi: 'vm1', labels: { [POD_UID_LABEL]: UID } },
      { do: 'answer', driven: true, why: '', attempt: 1, migration: name },
    ]);
  });

  it('where lifecycle.k8s.io is used, the attempt asks through its EvictionRequest', () => {
    const name = evictionRequestName(UID, 1);
    const next = { state: 'Started', attempt: 1, startedAt: NOW, deadline: NOW + S.timeoutMs, evictionRequest: name } as const;
    expect(decide(obs(req, { evictionRequests: true, vmi: 'vm1' }), { ...S, kubevirtMethod: 'migration' }, H)).toEqual<Effect[]>([
      { do: 'take-slot', uid: UID, node: 'n1', at: NOW, attempt: 1 },
      { do: 'annotate', set: writeState(next, H), gone: 'decide-again' },
      { do: 'request-eviction', name, uid: UID },
      { do: 'answer', driven: true, why: '', attempt: 1 },
    ]);
  });

  it('no controller answers the EvictionRequest in time: withdraw it, write the direct path, evict, say both', () => {
    const name = evictionRequestName(UID, 1);
    const fallback = `no EvictionRequest controller answered within 30 s; withdrew EvictionRequest ${name} and evicted directly through the Eviction API`;
    const next = { state: 'Started', attempt: 1, startedAt: NOW, deadline: NOW + S.timeoutMs, fallback } as const;
    expect(decide(obs({ ...req, ...started({ startedAt: NOW - 30_000, evictionRequest: name }) }, { evictionRequests: true }), S, H)).toEqual<Effect[]>([
      { do: 'withdraw-request', name },
      { do: 'annotate', set: writeState(next, H), gone: 'decide-again' },
      { do: 'evict' },
      { do: 'answer', driven: true, why: `${fallback} (EvictionRequest ${name} not found is new)`, attempt: 1 },
    ]);
  });

  it('a started attempt with nothing to show is driven again on its own path (resume after a crash)', () => {
    expect(decide(obs({ ...req, ...started() }), S, H)).toEqual<Effect[]>([{ do: 'evict' }, { do: 'answer', driven: true, why: '', attempt: 1 }]);
  });

  it('a migration found by its VMI is recorded, then the pod is read and decided again', () => {
    const found = { name: 'kubevirt-evacuation-x', phase: 'Running', recorded: false };
    expect(decide(obs({ ...req, ...started() }, { vmi: 'vm1', migration: found }), S, H)).toEqual<Effect[]>([
      { do: 'annotate', set: { [ANNOTATIONS.migration]: 'kubevirt-evacuation-x' }, gone: 'go-on' },
      { do: 'decide-again' },
    ]);
  });

  it('a failed EvictionRequest attempt backs off: the state first, then the request and the slot go', () => {
    const name = evictionRequestName(UID, 1);
    const failed = { ...mig('Failed', name), what: `EvictionRequest ${name}`, answered: true };
    expect(decide(obs({ ...req, ...started({ evictionRequest: name }) }, { migration: failed }), S, H)).toEqual<Effect[]>([
      { do: 'annotate', set: writeState({ state: 'Backoff', attempt: 1, retryAt: NOW + 10_000 }, H), gone: 'decide-again' },
      { do: 'delete-request', name },
      { do: 'release-slot', uid: UID, byPod: false },
      { do: 'answer', outcome: 'backoff', why: `EvictionRequest ${name} failed; retry in 10 s`, attempt: 1, migration: name },
    ]);
  });

  it('timeout on a migration of our own: abort it, record the end, give the slot back, a Warning, the answer', () => {
    const name = migrationName(UID, 1);
    const o = obs({ ...req, ...started({ startedAt: NOW - S.timeoutMs, migration: name }) }, { vmi: 'vm1', migration: mig('Running', name) });
    const why = `attempt 1 not confirmed done within 600 s; migration ${name} is Running`;
    expect(decide(o, { ...S, kubevirtMethod: 'migration' }, H)).toEqual<Effect[]>([
      { do: 'delete-migration', name },
      { do: 'annotate', set: ended(`TimedOut at ${iso(NOW)}: ${why}`), gone: 'go-on' },
      { do: 'release-slot', uid: UID, byPod: true, ends: true },
      { do: 'event', reason: 'EvacuationTimedOut', type: 'Warning', note: why },
      { do: 'answer', outcome: 'timedout', why, attempt: 1, migration: name },
    ]);
  });

  it('cancel through the Eviction API on a launcher pod: abort KubeVirt’s migration, then look at the VMI’s mark before saying why', () => {
    const o = obs(started(), { vmi: 'vm1', migration: mig('Scheduling') });
    const effects = decide(o, S, H);
    expect(effects).toEqual<Effect[]>([
      { do: 'delete-migration', name: 'm1' },
      { do: 'look', at: 'kubevirt-mark', vmi: 'vm1', then: expect.any(Function) },
    ]);
    const then = (effects[1] as Extract<Effect, { do: 'look' }>).then;
    const why = 'the request was withdrawn';
    expect(then({})).toEqual<Effect[]>([
      { do: 'annotate', set: ended(`Cancelled at ${iso(NOW)}: ${why}`), gone: 'go-on' },
      { do: 'release-slot', uid: UID, byPod: true, ends: true },
      { do: 'event', reason: 'EvacuationCancelled', type: 'Normal', note: why },
      { do: 'answer', outcome: 'cancelled', why, attempt: 1, migration: 'm1' },
    ]);
    const still = `${why}; KubeVirt still marks VMI vm1 for evacuation from n1 and keeps creating migrations until that is cancelled (virtctl evacuate-cancel vmi vm1, KubeVirt 1.7+)`;
    expect(then({ node: 'n1' })).toContainEqual({ do: 'event', reason: 'EvacuationCancelled', type: 'Warning', note: still });
    expect(then({ unknown: 'boom' })).toContainEqual({
      do: 'answer',
      outcome: 'cancelled',
      why: `${why}; whether KubeVirt still evacuates VMI vm1 is unknown: boom`,
      attempt: 1,
      migration: 'm1',
    });
  });

  it('a cancelled EvictionRequest attempt is withdrawn, not deleted, and no VMI is read', () => {
    const name = evictionRequestName(UID, 1);
    expect(decide(obs(started({ evictionRequest: name }), { vmi: 'vm1' }), S, H).slice(0, 2)).toEqual<Effect[]>([
      { do: 'withdraw-request', name },
      { do: 'annotate', set: ended(`Cancelled at ${iso(NOW)}: the request was withdrawn`), gone: 'go-on' },
    ]);
  });

  it('the pod gone: nothing to write, the slot given back by its name', () => {
    expect(decide({ now: NOW }, S, H)).toEqual<Effect[]>([
      { do: 'release-slot', byPod: true, ends: true },
      { do: 'answer', outcome: 'succeeded', why: 'the pod is gone' },
    ]);
  });

  it('the pod terminating: nothing written on it, the slot given back as the end (the release tells it)', () => {
    const o = obs({ ...req, ...started() });
    expect(decide({ ...o, pod: { ...o.pod!, deleting: true } }, S, H)).toEqual<Effect[]>([
      { do: 'release-slot', uid: UID, byPod: true, ends: true },
      { do: 'answer', outcome: 'succeeded', why: 'the pod is terminating', attempt: 1 },
    ]);
  });

  it('a backoff not over yet and a pod without a request only answer', () => {
    expect(decide(obs({ ...req, ...stored({ state: 'Backoff', attempt: 1, retryAt: NOW + 1 }) }), S, H)).toEqual<Effect[]>([
      { do: 'answer', outcome: 'waiting', why: `attempt 2 at ${iso(NOW + 1)}`, attempt: 1 },
    ]);
    expect(decide(obs({}), S, H)).toEqual<Effect[]>([{ do: 'answer', outcome: 'nothing-to-do', why: 'no evacuation requested' }]);
  });
});

describe('the responder’s answer as effects', () => {
  const eviction = (state: string, heartbeat = NOW - 60_000): Eviction => ({
    metadata: { name: 'e', uid: 'ev-uid', resourceVersion: '7' },
    spec: { target: { pod: { name: 'p', uid: UID } } },
    status: {
      targetResponders: [{ name: KUBEVIRT_RESPONDER, priority: 10000, state }],
      responders: [{ name: KUBEVIRT_RESPONDER, startTime: iso(NOW - 120_000), heartbeatTime: iso(heartbeat) }],
    },
  });
  const name = responderMigrationName('ev-uid');
  const at = (e: Eviction, o: { pod?: { vmi?: string }; migration?: { phase: string } }) =>
    answer({ eviction: e, name: KUBEVIRT_RESPONDER, ...o, now: NOW }, RESPONDER_DEFAULTS);

  it('Active without a migration: create it, then the status as read, then an Event, then the reply', () => {
    const e = eviction('Active');
    const message = `live migration ${name} started`;
    expect(at(e, { pod: { vmi: 'vm' } })).toEqual<Effect[]>([
      { do: 'create-migration', name, vmi: 'vm', labels: { [EVICTION_UID_LABEL]: 'ev-uid' } },
      { do: 'write-responders', responders: respondersAfter(e, KUBEVIRT_RESPONDER, { do: 'start', migration: name, message, why: '' }, NOW) },
      { do: 'event', reason: 'EvictionResponderStarted', type: 'Normal', note: message },
      { do: 'reply', step: 'start', why: 'Active: starting the live migration' },
    ]);
  });

  it('a heartbeat writes the status only; a completion with the pod gone writes no Event', () => {
    expect(at(eviction('Active'), { pod: { vmi: 'vm' }, migration: { phase: 'Running' } }).map((x) => x.do)).toEqual(['write-responders', 'reply']);
    expect(at(eviction('Active'), { migration: { phase: 'Succeeded' } }).map((x) => x.do)).toEqual(['write-responders', 'reply']);
  });

  it('Canceled with the migration running: delete it and reply; nothing to do: only the reply', () => {
    expect(at(eviction('Canceled'), { pod: { vmi: 'vm' }, migration: { phase: 'Running' } })).toEqual<Effect[]>([
      { do: 'delete-migration', name },
      { do: 'reply', step: 'abort', why: 'the Eviction was canceled: aborting the migration' },
    ]);
    expect(at(eviction('Inactive'), { pod: { vmi: 'vm' } })).toEqual<Effect[]>([{ do: 'reply', step: 'none', why: 'responder state Inactive' }]);
  });
});
