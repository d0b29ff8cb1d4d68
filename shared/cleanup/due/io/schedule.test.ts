import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { CleanupHandle } from '../../index.js';
import type { DueEntry } from '../core/due.js';
import type { DueList } from './list.js';
import { Due } from './schedule.js';
import { DueTimers, type TimerClock } from './timers.js';
import { MetricsRecorder } from '../../../metrics/recorder.js';

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const MIN = 60_000;
const pod = { namespace: 'ml', name: 'etl-0', uid: 'u-1' };
const at = (ms: number) => new Date(T0 + ms).toISOString();

/** A due list that records what it was asked (no cluster): the event path's requests, one per call. */
function fakeList(full = false) {
  const calls: string[] = [];
  const list = {
    put: async (e: DueEntry) => (calls.push(`put ${e.uid} ${e.at - T0}`), full ? 'full' : 'added'),
    remove: async (uids: Iterable<string>) => (calls.push(`remove ${[...uids].join(',')}`), 1),
    read: async () => [],
  } as unknown as DueList;
  return { list, calls };
}

function due(o: { dryRun?: boolean; full?: boolean } = {}) {
  const clock: TimerClock = { now: () => T0, set: () => 0, clear: () => undefined };
  const log = pino({ level: 'silent' });
  const h = { settings: { dryRun: o.dryRun ?? false }, now: () => T0, ready: async () => undefined, log } as unknown as CleanupHandle;
  const timers = new DueTimers({ act: async () => undefined, max: 10, horizonMs: 30 * MIN, log, metrics: MetricsRecorder.off(), clock });
  const { list, calls } = fakeList(o.full);
  return { d: new Due(h, timers, list, { horizonMs: 30 * MIN, lookAheadMs: MIN, marginMs: 3_000, pollMs: 10_000 }), timers, calls };
}

describe('Due.onDecision: the event path schedules', () => {
  it('arms a timer and lists the pod once; a repeated event with the same time writes nothing, a new time moves it', async () => {
    const { d, timers, calls } = due();
    expect(await d.onDecision(pod, at(20_000))).toEqual({ scheduled: at(20_000), listed: 'added' });
    expect(timers.at('u-1')).toBe(T0 + 20_000);
    expect(await d.onDecision(pod, at(20_000))).toEqual({ scheduled: at(20_000) });
    await d.onDecision(pod, at(40_000));
    expect(calls).toEqual(['put u-1 20000', 'put u-1 40000']);
  });

  it('beyond the horizon: no entry, no `scheduled`, only a timer that looks again', async () => {
    const { d, timers, calls } = due();
    expect(await d.onDecision(pod, at(31 * MIN))).toEqual({});
    expect(timers.at('u-1')).toBe(T0 + 31 * MIN);
    expect(calls).toEqual([]);
  });

  it('writes nothing in DRY_RUN, and still times the pod', async () => {
    const { d, timers, calls } = due({ dryRun: true });
    expect(await d.onDecision(pod, at(20_000))).toEqual({ scheduled: at(20_000) });
    expect(timers.size).toBe(1);
    expect(calls).toEqual([]);
  });

  it('a pod no longer waiting on time (decided, gone, changed) loses its timer and its entry', async () => {
    const { d, timers, calls } = due();
    await d.onDecision(pod, at(20_000));
    expect(await d.onDecision(pod, undefined)).toEqual({});
    expect(timers.size).toBe(0);
    expect(calls).toEqual(['put u-1 20000', 'remove u-1']);
    // Never listed by this instance: nothing to remove, no request.
    await d.forget('u-other');
    expect(calls).toHaveLength(2);
  });

  it('settle keeps the entry when the action must be tried again (deferred, failed), takes it out otherwise', async () => {
    const { d, calls } = due();
    await d.onDecision(pod, at(20_000));
    await d.settle('u-1', { outcome: 'deferred' });
    await d.settle('u-1', { outcome: 'deleted', failures: { transient: 1, refused: 0 } });
    expect(calls).toEqual(['put u-1 20000']);
    await d.settle('u-1', { outcome: 'deleted', failures: { transient: 0, refused: 0 } });
    expect(calls).toEqual(['put u-1 20000', 'remove u-1']);
  });

  it('a full shard: the pod is still timed, and a later event tries the list again', async () => {
    const { d, calls } = due({ full: true });
    expect(await d.onDecision(pod, at(20_000))).toEqual({ scheduled: at(20_000), listed: 'full' });
    await d.onDecision(pod, at(20_000));
    expect(calls).toEqual(['put u-1 20000', 'put u-1 20000']);
  });
});

describe('Due.tick: one tick loop per process (issue 33)', () => {
  /** A Due on the real clock with a short window (300 ms ahead, a look every 100 ms) and a list that counts its reads. */
  function ticking() {
    const log = pino({ level: 'silent' });
    const h = { settings: { dryRun: false }, now: () => Date.now(), ready: async () => undefined, log } as unknown as CleanupHandle;
    const timers = new DueTimers({ act: async () => undefined, max: 10, horizonMs: 30 * MIN, log, metrics: MetricsRecorder.off() });
    // Which tick a read was made for: the loop runs in the async context of the tick that started it.
    const by = new AsyncLocalStorage<string>();
    const reads: { at: number; by?: string }[] = [];
    const list = { read: async () => (reads.push({ at: Date.now(), by: by.getStore() }), []), remove: async () => 0 } as unknown as DueList;
    const d = new Due(h, timers, list, { horizonMs: 30 * MIN, lookAheadMs: 300, marginMs: 0, pollMs: 100 });
    return { d, reads, by };
  }
  const far = () => Date.now() + MIN;

  it('50 ticks at once read the list as often as one: one loop answers, the other 49 join it at once', async () => {
    const one = ticking();
    const alone = await one.d.tick(far());
    expect(alone).toMatchObject({ outcome: 'ticked' });

    const many = ticking();
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 50 }, () => many.d.tick(far())));
    const joined = answers.filter((a) => a.outcome === 'joined');
    expect(answers.filter((a) => a.outcome === 'ticked')).toHaveLength(1);
    expect(joined).toHaveLength(49);
    expect(joined[0]).toMatchObject({ reads: 0, due: 0, joined: { until: expect.any(String) } });
    expect(many.reads.length).toBe(one.reads.length);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('a tick whose window outlasts the running loop waits for it to end and then runs its own: loops never overlap', async () => {
    const { d, reads, by } = ticking();
    const first = by.run('first', () => d.tick(far()));
    await new Promise((r) => setTimeout(r, 150));
    const second = await by.run('second', () => d.tick(far()));
    expect((await first).outcome).toBe('ticked');
    // Not joined: the first loop ended 150 ms before this tick's window did.
    expect(second.outcome).toBe('ticked');
    expect(second.reads).toBeGreaterThan(0);
    // Every read of the first loop before any of the second's.
    const who = reads.map((r) => r.by);
    expect(who).toEqual([...who.filter((w) => w === 'first'), ...who.filter((w) => w === 'second')]);
    expect(who.filter((w) => w === 'second')).toHaveLength(second.reads);
  });

  it('a loop that failed (its tick answers 503) leaves none running: the next tick starts afresh', async () => {
    const { d, reads } = ticking();
    const list = (d as unknown as { list: { read: () => Promise<unknown[]> } }).list;
    const read = list.read;
    list.read = async () => {
      list.read = read;
      throw new Error('API server unreachable');
    };
    await expect(d.tick(far())).rejects.toThrow('API server unreachable');
    expect(await d.tick(far())).toMatchObject({ outcome: 'ticked' });
    expect(reads.length).toBeGreaterThan(0);
  });
});
