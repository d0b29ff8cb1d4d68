import { describe, expect, it } from 'vitest';
import { inOrder, inTurn } from './in-order.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('inOrder', () => {
  it('starts items strictly in order and never has more than `concurrency` in flight', async () => {
    const startedOrder: number[] = [];
    let inFlight = 0;
    let peak = 0;
    const { results, started } = await inOrder(
      [...Array(50).keys()],
      4,
      () => false,
      async (n) => {
        startedOrder.push(n);
        peak = Math.max(peak, ++inFlight);
        for (let k = 0; k < (n * 7) % 5; k++) await tick(); // finish out of order
        inFlight--;
        return n * 2;
      },
    );
    expect(startedOrder).toEqual([...Array(50).keys()]);
    expect(peak).toBe(4);
    expect(started).toBe(50);
    expect(results).toEqual([...Array(50).keys()].map((n) => n * 2));
  });

  it('starts nothing more once stop() says so, and says how many were started', async () => {
    let calls = 0;
    const { results, started } = await inOrder(
      [...Array(20).keys()],
      3,
      () => calls >= 7,
      async (n) => {
        calls++;
        await tick();
        return n;
      },
    );
    expect(started).toBe(7);
    expect(results.filter((r) => r !== undefined)).toHaveLength(7);
    expect(results.slice(7).every((r) => r === undefined)).toBe(true);
  });

  it('surfaces a bug instead of swallowing it', async () => {
    await expect(
      inOrder(
        [1, 2, 3],
        2,
        () => false,
        async (n) => {
          if (n === 2) throw new Error('bug');
          return n;
        },
      ),
    ).rejects.toThrow('bug');
  });
});

describe('inTurn', () => {
  it('tells each result in its item order, as soon as every one before it is in, whatever order they finish in', () => {
    const told: [string, number][] = [];
    const done = inTurn<string>((r, i) => told.push([r, i]));
    done(2, 'c');
    done(1, 'b');
    expect(told).toEqual([]);
    done(0, 'a');
    expect(told).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ]);
    done(4, 'e');
    expect(told).toHaveLength(3);
    done(3, 'd');
    expect(told.map(([r]) => r)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('with inOrder: the items finishing out of order are told in the plan order, each once', async () => {
    const told: number[] = [];
    const done = inTurn<number>((r) => told.push(r));
    await inOrder(
      [...Array(30).keys()],
      5,
      () => false,
      async (n, i) => {
        for (let k = 0; k < (n * 7) % 5; k++) await tick();
        done(i, n);
        return n;
      },
    );
    expect(told).toEqual([...Array(30).keys()]);
  });
});
