import { describe, expect, it } from 'vitest';
import { classifyKubeError } from './errors.js';
import { Throttle } from './throttle.js';

function clock() {
  let t = 0;
  const slept: number[] = [];
  return { now: () => t, sleep: async (ms: number) => void (slept.push(ms), (t += ms)), slept, advance: (ms: number) => (t += ms) };
}

describe('Throttle (client-side QPS/burst, server pauses)', () => {
  it('lets a burst through at once, then spaces requests at 1/qps', async () => {
    const c = clock();
    const th = new Throttle({ qps: 10, burst: 3, now: c.now, sleep: c.sleep });
    for (let i = 0; i < 3; i++) await th.take();
    expect(c.slept).toEqual([]);
    await th.take();
    await th.take();
    expect(c.slept.map(Math.round)).toEqual([100, 100]);
  });

  it('serves waiting callers in call order when they take at the same instant', async () => {
    const c = clock();
    const th = new Throttle({ qps: 100, burst: 1, now: () => c.now(), sleep: async (ms) => void c.slept.push(ms) });
    await Promise.all([th.take(), th.take(), th.take()]);
    expect(c.slept.map(Math.round)).toEqual([10, 20]);
  });

  it('holds every request for the server’s Retry-After, capped at 10 s', async () => {
    const c = clock();
    const th = new Throttle({ qps: 1000, burst: 1000, now: c.now, sleep: c.sleep });
    th.pause(2);
    await th.take();
    expect(c.slept).toEqual([2000]);
    th.pause(3600);
    await th.take();
    expect(c.slept[1]).toBe(10_000);
    expect(th.throttled).toBe(2);
  });

  it('after a pause, the requests held leave one by one at the halved rate from its end, not together', async () => {
    let t = 0;
    const slept: number[] = [];
    // Each sleeper wakes at its own time: all four take their slots before the first wakes.
    const sleep = async (ms: number) => {
      slept.push(ms);
      const at = t + ms;
      await Promise.resolve();
      t = Math.max(t, at);
    };
    const th = new Throttle({ qps: 100, burst: 100, now: () => t, sleep });
    th.pause(1);
    await Promise.all(Array.from({ length: 4 }, () => th.take()));
    expect(slept.map(Math.round)).toEqual([1000, 1020, 1040, 1060]);
  });

  it('a request asleep for its slot when a pause begins waits for the pause’s end too', async () => {
    let t = 0;
    const wakes: Array<() => void> = [];
    const slept: number[] = [];
    const th = new Throttle({ qps: 10, burst: 1, now: () => t, sleep: (ms) => new Promise<void>((r) => (slept.push(ms), wakes.push(r))) });
    await th.take();
    const second = th.take(); // its slot is 100 ms on
    await Promise.resolve();
    t = 50;
    th.pause(2); // until 2050
    t = 100;
    wakes.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(slept.map(Math.round)).toEqual([100, 1950]);
    t = 2050;
    wakes.shift()!();
    await second;
  });
});

describe('throttling is told apart from a PodDisruptionBudget refusal', () => {
  it('a plain-text 429 (API Priority and Fairness, max-inflight) is throttling', () => {
    const f = classifyKubeError({ code: 429, body: 'Too many requests, please try again later.\n', headers: { 'retry-after': '1' } });
    expect(f).toMatchObject({ kind: 'too-many-requests', throttled: true, retryAfterSeconds: 1 });
  });
  it('a Status 429 naming a disruption budget is not', () => {
    const body = JSON.stringify({
      kind: 'Status',
      code: 429,
      reason: 'TooManyRequests',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget pdb needs 1 healthy pods' }], retryAfterSeconds: 10 },
    });
    const f = classifyKubeError({ code: 429, body, headers: { 'retry-after': '10' } });
    expect(f.kind).toBe('too-many-requests');
    expect(f.throttled).toBeUndefined();
  });
});

describe('Throttle backs off multiplicatively and recovers additively', () => {
  it('halves the rate once per throttling episode and wins it back per answered request', async () => {
    const c = clock();
    const th = new Throttle({ qps: 100, burst: 100, now: c.now, sleep: c.sleep });
    th.pause(1);
    th.pause(1); // the same episode: answers to requests already in flight
    expect(th.currentRate).toBe(50);
    c.advance(1000);
    th.pause(1); // a new episode
    expect(th.currentRate).toBe(25);
    for (let i = 0; i < 10; i++) th.answered();
    expect(th.currentRate).toBe(35);
    for (let i = 0; i < 1000; i++) th.answered();
    expect(th.currentRate).toBe(100);
  });
});
