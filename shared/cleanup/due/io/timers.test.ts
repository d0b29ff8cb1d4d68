import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { DueEntry } from '../core/due.js';
import { DueTimers, type TimerClock } from './timers.js';
import { counterValue } from '../../../../test/fixtures/metrics/counter.js';
import { MetricsRecorder } from '../../../metrics/recorder.js';

/** The recorder the host would build, which the tests' lists and timers count in. */
const metrics = new MetricsRecorder();
const dueRefusedCount = (reason: string) => counterValue(metrics, 'kube_tidy_due_refused_total', { reason });

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const MIN = 60_000;

/** A clock the test moves by hand: timers fire in time order as it passes them. */
function fakeClock(start = T0) {
  let t = start;
  let seq = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  const clock: TimerClock = {
    now: () => t,
    set: (fn, ms) => {
      const id = ++seq;
      pending.set(id, { at: t + ms, fn });
      return id;
    },
    clear: (id) => void pending.delete(id as number),
  };
  const advance = async (ms: number) => {
    const end = t + ms;
    for (;;) {
      const next = [...pending].filter(([, p]) => p.at <= end).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!next) break;
      pending.delete(next[0]);
      t = next[1].at;
      next[1].fn();
      await Promise.resolve();
    }
    t = end;
  };
  return { clock, advance, pending: () => pending.size };
}

const entry = (uid: string, at: number): DueEntry => ({ namespace: 'ml', name: `pod-${uid}`, uid, at });

function timers(o: { max?: number; horizonMs?: number } = {}) {
  const c = fakeClock();
  const acted: { uid: string; at: number; when: number }[] = [];
  const lines: unknown[] = [];
  const log = pino({ level: 'warn' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  const t = new DueTimers({
    act: async (e) => void acted.push({ uid: e.uid, at: e.at, when: c.clock.now() }),
    max: o.max ?? 100,
    horizonMs: o.horizonMs ?? 30 * MIN,
    log,
    metrics,
    clock: c.clock,
  });
  return { t, c, acted, lines };
}

describe('DueTimers', () => {
  it('acts once at the pod’s time, not before', async () => {
    const { t, c, acted } = timers();
    expect(t.arm(entry('a', T0 + 20_000))).toBe('armed');
    await c.advance(19_999);
    expect(acted).toEqual([]);
    await c.advance(1);
    expect(acted).toEqual([{ uid: 'a', at: T0 + 20_000, when: T0 + 20_000 }]);
    expect(t.size).toBe(0);
    await c.advance(10 * MIN);
    expect(acted).toHaveLength(1);
  });

  it('keeps one timer per pod: a newer event re-arms it at its new time', async () => {
    const { t, c, acted } = timers();
    t.arm(entry('a', T0 + 20_000));
    expect(t.arm(entry('a', T0 + 20_000))).toBe('unchanged');
    expect(t.arm(entry('a', T0 + 40_000))).toBe('armed');
    expect(t.size).toBe(1);
    expect(c.pending()).toBe(1);
    await c.advance(60_000);
    expect(acted).toEqual([{ uid: 'a', at: T0 + 40_000, when: T0 + 40_000 }]);
  });

  it('a cleared timer (the pod gone or decided) never acts', async () => {
    const { t, c, acted } = timers();
    t.arm(entry('a', T0 + 20_000));
    expect(t.clear('a')).toBe(true);
    expect(t.clear('a')).toBe(false);
    await c.advance(MIN);
    expect(acted).toEqual([]);
    expect(c.pending()).toBe(0);
  });

  it('arms a far time only to the horizon, looks again there, and acts at the time', async () => {
    const { t, c, acted } = timers({ horizonMs: 30 * MIN });
    const at = T0 + 3 * 60 * MIN + 7_000;
    t.arm(entry('far', at));
    await c.advance(30 * MIN);
    expect(acted).toEqual([]);
    expect(t.at('far')).toBe(at);
    await c.advance(at - T0 - 30 * MIN);
    expect(acted).toEqual([{ uid: 'far', at, when: at }]);
  });

  it('is bounded: one more than max is refused and logged, a known pod still re-arms', async () => {
    const { t, c, acted, lines } = timers({ max: 2 });
    t.arm(entry('a', T0 + 1_000));
    t.arm(entry('b', T0 + 2_000));
    expect(t.arm(entry('c', T0 + 3_000))).toBe('full');
    expect(t.refused).toBe(1);
    expect(await dueRefusedCount('timers-full')).toBe(1);
    expect(lines).toEqual([expect.objectContaining({ pod: 'ml/pod-c', max: 2 })]);
    expect(t.arm(entry('b', T0 + 4_000))).toBe('armed');
    await c.advance(MIN);
    expect(acted.map((a) => a.uid)).toEqual(['a', 'b']);
  });

  it('stop() clears every timer and arms no more', async () => {
    const { t, c, acted } = timers();
    t.arm(entry('a', T0 + 1_000));
    t.arm(entry('b', T0 + 2_000));
    t.stop();
    expect(t.arm(entry('c', T0 + 3_000))).toBe('stopped');
    await c.advance(MIN);
    expect(acted).toEqual([]);
    expect(c.pending()).toBe(0);
  });

  it('an action that throws is logged, and the other timers still act', async () => {
    const c = fakeClock();
    const lines: { msg?: string }[] = [];
    const acted: string[] = [];
    const t = new DueTimers({
      act: async (e) => {
        if (e.uid === 'bad') throw new Error('boom');
        acted.push(e.uid);
      },
      max: 10,
      horizonMs: 30 * MIN,
      log: pino({ level: 'warn' }, { write: (l: string) => void lines.push(JSON.parse(l)) }),
      metrics,
      clock: c.clock,
    });
    t.arm(entry('bad', T0 + 1_000));
    t.arm(entry('good', T0 + 2_000));
    await c.advance(MIN);
    await new Promise((r) => setImmediate(r));
    expect(acted).toEqual(['good']);
    expect(lines.map((l) => l.msg)).toContain('due: the timed action failed');
  });

  it('the system clock’s timers never keep the process up (unref)', () => {
    const t = new DueTimers({ act: async () => undefined, max: 10, horizonMs: 30 * MIN, log: pino({ level: 'silent' }), metrics });
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    t.arm(entry('a', Date.now() + 60_000));
    // An unref'd timer is not counted among the resources that keep the event loop alive.
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBe(before);
    t.stop();
  });
});
