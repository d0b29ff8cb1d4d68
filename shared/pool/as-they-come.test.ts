import { describe, expect, it } from 'vitest';
import { asTheyCome } from './as-they-come.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('asTheyCome', () => {
  it('starts items as they are pushed, in order, never more than `concurrency` in flight', async () => {
    const startedOrder: number[] = [];
    let inFlight = 0;
    let peak = 0;
    const fed = asTheyCome<number>(
      3,
      () => false,
      async (n) => {
        startedOrder.push(n);
        peak = Math.max(peak, ++inFlight);
        for (let k = 0; k < (n * 7) % 4; k++) await tick();
        inFlight--;
      },
    );
    // Pushed in bursts with pauses between: the first burst starts before the second is known.
    for (let burst = 0; burst < 5; burst++) {
      for (let i = 0; i < 10; i++) fed.push(burst * 10 + i);
      await tick();
      // Writing goes on between bursts: items are started before the later ones exist.
      expect(startedOrder.length).toBeGreaterThan(burst);
    }
    fed.close();
    expect(await fed.done).toEqual({ started: 50, left: [] });
    expect(startedOrder).toEqual([...Array(50).keys()]);
    expect(peak).toBe(3);
  });

  it('starts nothing once stop() says so and hands back, in order, what was never started', async () => {
    let calls = 0;
    const fed = asTheyCome<number>(
      2,
      () => calls >= 5,
      async () => {
        calls++;
        await tick();
      },
    );
    for (let i = 0; i < 20; i++) fed.push(i);
    await tick();
    for (let i = 20; i < 25; i++) fed.push(i); // after the stop: kept, not started
    fed.close();
    const { started, left } = await fed.done;
    expect(started).toBe(calls);
    expect(left).toEqual([...Array(25).keys()].slice(started));
  });

  it('settles at once when closed with nothing pushed, and after more than a thousand items (the queue drops what it started)', async () => {
    const empty = asTheyCome<number>(
      4,
      () => false,
      async () => {},
    );
    empty.close();
    expect(await empty.done).toEqual({ started: 0, left: [] });
    const seen: number[] = [];
    const fed = asTheyCome<number>(
      4,
      () => false,
      async (n) => void seen.push(n),
    );
    for (let i = 0; i < 5000; i++) fed.push(i);
    fed.close();
    expect((await fed.done).started).toBe(5000);
    expect(seen).toEqual([...Array(5000).keys()]);
  });

  it('rejects with what `each` threw (a bug) and starts nothing after it', async () => {
    const seen: number[] = [];
    const fed = asTheyCome<number>(
      1,
      () => false,
      async (n) => {
        seen.push(n);
        if (n === 2) throw new Error('bug');
      },
    );
    for (let i = 0; i < 10; i++) fed.push(i);
    fed.close();
    await expect(fed.done).rejects.toThrow('bug');
    expect(seen).toEqual([0, 1, 2]);
  });

  it('below(n): a producer waits until at most n wait to be started, and is let go when writing stops', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const fed = asTheyCome<number>(
      1,
      () => false,
      async () => gate,
    );
    for (let i = 0; i < 10; i++) fed.push(i);
    expect(fed.pending).toBe(9); // one started at once
    let woke = false;
    const waiting = fed.below(3).then(() => (woke = true));
    await tick();
    expect(woke).toBe(false);
    release(); // every write now ends at once: the queue drains
    await waiting;
    expect(fed.pending).toBeLessThanOrEqual(3);
    fed.close();
    await fed.done;

    let stopped = false;
    const halting = asTheyCome<number>(
      1,
      () => stopped,
      async () => tick(),
    );
    for (let i = 0; i < 10; i++) halting.push(i);
    const wait = halting.below(0);
    stopped = true;
    await wait; // released although 9 were never started
    halting.close();
    expect((await halting.done).left.length).toBeGreaterThan(0);
  });
});
