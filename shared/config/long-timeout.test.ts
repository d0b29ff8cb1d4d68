import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMEOUT_MS, setLongInterval, setLongTimeout, sleepLong, timeoutSignal, type TimerFns } from './long-timeout.js';

const HOUR = 3_600_000;

/** Timer functions that record each delay asked and fire only when told. */
function manual() {
  const pending: { fn: () => void; ms: number }[] = [];
  const asked: number[] = [];
  const timers: TimerFns = {
    set: (fn, ms) => {
      asked.push(ms);
      const t = { fn, ms };
      pending.push(t);
      return t;
    },
    clear: (t) => void pending.splice(pending.indexOf(t as (typeof pending)[number]), 1),
  };
  return { timers, asked, fireNext: () => pending.shift()!.fn(), pending };
}

describe('setLongTimeout', () => {
  it('never asks setTimeout for more than 2^31-1 ms: 720h is one capped step and the rest', () => {
    const m = manual();
    const fn = vi.fn();
    setLongTimeout(fn, 720 * HOUR, { timers: m.timers });
    expect(m.asked).toEqual([MAX_TIMEOUT_MS]);
    m.fireNext();
    expect(fn).not.toHaveBeenCalled();
    m.fireNext();
    expect(fn).toHaveBeenCalledOnce();
    expect(m.asked.every((ms) => ms <= MAX_TIMEOUT_MS)).toBe(true);
    expect(m.asked.reduce((a, b) => a + b, 0)).toBe(720 * HOUR);
  });

  it('a delay setTimeout holds is one timer of that delay', () => {
    const m = manual();
    setLongTimeout(() => undefined, 5_000, { timers: m.timers });
    expect(m.asked).toEqual([5_000]);
  });

  it('a negative, zero or NaN delay fires at once (0), as setTimeout', () => {
    for (const ms of [-1, 0, Number.NaN]) {
      const m = manual();
      setLongTimeout(() => undefined, ms, { timers: m.timers });
      expect(m.asked).toEqual([0]);
    }
  });

  it('cleared between steps, it never fires', () => {
    const m = manual();
    const fn = vi.fn();
    const t = setLongTimeout(fn, 3 * MAX_TIMEOUT_MS, { timers: m.timers });
    m.fireNext();
    t.clear();
    expect(m.pending).toEqual([]);
    expect(fn).not.toHaveBeenCalled();
  });
});

describe('on the process timers (faked)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('720h fires after 720h, not after 1 ms as a bare setTimeout would', async () => {
    const fn = vi.fn();
    setLongTimeout(fn, 720 * HOUR);
    await vi.advanceTimersByTimeAsync(1);
    expect(fn).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(720 * HOUR - 2);
    expect(fn).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fn).toHaveBeenCalledOnce();
  });

  it('sleepLong waits the whole delay, and an abort ends it at once', async () => {
    let slept = false;
    void sleepLong(30 * 24 * HOUR).then(() => (slept = true));
    await vi.advanceTimersByTimeAsync(25 * 24 * HOUR);
    expect(slept).toBe(false);
    await vi.advanceTimersByTimeAsync(5 * 24 * HOUR);
    expect(slept).toBe(true);
    const stop = new AbortController();
    let woke = false;
    void sleepLong(720 * HOUR, stop.signal).then(() => (woke = true));
    stop.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(woke).toBe(true);
  });

  it('timeoutSignal past the cap aborts at its time, not at once', async () => {
    const signal = timeoutSignal(30 * 24 * HOUR);
    await vi.advanceTimersByTimeAsync(1000);
    expect(signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(30 * 24 * HOUR);
    expect(signal.aborted).toBe(true);
  });

  it('setLongInterval repeats every 720h, not every millisecond, until cleared', async () => {
    const fn = vi.fn();
    const t = setLongInterval(fn, 720 * HOUR);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fn).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(2 * 720 * HOUR);
    expect(fn).toHaveBeenCalledTimes(2);
    t.clear();
    await vi.advanceTimersByTimeAsync(720 * HOUR);
    expect(fn).toHaveBeenCalledTimes(2);
  });
});
