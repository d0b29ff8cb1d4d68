import { describe, expect, it } from 'vitest';
import { KeyedQueue } from './queue.js';

// A handler whose calls finish only when the test says so, to observe what runs when.
function gate() {
  const started: string[] = [];
  const finished: string[] = [];
  const pending = new Map<string, () => void>();
  return {
    started,
    finished,
    handle: (item: string) =>
      new Promise<void>((resolve) => {
        started.push(item);
        pending.set(item, () => {
          finished.push(item);
          resolve();
        });
      }),
    async release(item: string) {
      const r = pending.get(item);
      if (!r) throw new Error(`${item} is not running`);
      pending.delete(item);
      r();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('KeyedQueue', () => {
  it('runs one item per key at a time, in arrival order, while other keys run beside it', async () => {
    const g = gate();
    const q = new KeyedQueue<string>({ concurrency: 4, capacity: 100, handle: g.handle });
    for (const item of ['a1', 'a2', 'b1', 'a3', 'b2']) q.push(item[0]!, item);
    expect(g.started).toEqual(['a1', 'b1']);
    await g.release('a1');
    expect(g.started).toEqual(['a1', 'b1', 'a2']);
    await g.release('a2');
    await g.release('b1');
    expect(g.started).toEqual(['a1', 'b1', 'a2', 'a3', 'b2']);
    await g.release('a3');
    await g.release('b2');
    await q.idle();
    expect(g.finished).toEqual(['a1', 'a2', 'b1', 'a3', 'b2']);
  });

  it('keeps per-key order under random completion times with many keys', async () => {
    const done: string[] = [];
    const q = new KeyedQueue<string>({
      concurrency: 3,
      capacity: 1_000,
      handle: async (item) => {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
        done.push(item);
      },
    });
    for (let i = 0; i < 200; i++) q.push(`k${i % 7}`, `k${i % 7}:${i}`);
    await q.idle();
    expect(done).toHaveLength(200);
    for (let k = 0; k < 7; k++) {
      const seq = done.filter((d) => d.startsWith(`k${k}:`)).map((d) => Number(d.split(':')[1]));
      expect(seq).toEqual([...seq].sort((x, y) => x - y));
    }
  });

  it('never runs more than `concurrency` items at once', async () => {
    const g = gate();
    const q = new KeyedQueue<string>({ concurrency: 2, capacity: 100, handle: g.handle });
    for (const k of ['a', 'b', 'c', 'd']) q.push(k, k);
    expect(g.started).toEqual(['a', 'b']);
    expect(q.runningCount).toBe(2);
    expect(q.waitingCount).toBe(2);
    await g.release('b');
    expect(g.started).toEqual(['a', 'b', 'c']);
  });

  it('drops the oldest waiting item when full and reports it; running items are never dropped', async () => {
    const g = gate();
    const dropped: string[] = [];
    const q = new KeyedQueue<string>({ concurrency: 1, capacity: 2, handle: g.handle, onDrop: (i) => dropped.push(i) });
    for (const item of ['run', 'w1', 'w2', 'w3', 'w4']) q.push(item, item);
    expect(dropped).toEqual(['w1', 'w2']);
    expect(q.waitingCount).toBe(2);
    await g.release('run');
    await g.release('w3');
    await g.release('w4');
    await q.idle();
    expect(g.finished).toEqual(['run', 'w3', 'w4']);
  });

  it('a failing item does not stall its key', async () => {
    const done: string[] = [];
    const q = new KeyedQueue<string>({
      concurrency: 1,
      capacity: 10,
      handle: async (item) => {
        if (item === 'bad') throw new Error('boom');
        done.push(item);
      },
    });
    q.push('k', 'bad');
    q.push('k', 'good');
    await q.idle();
    expect(done).toEqual(['good']);
  });

  it('idle() resolves at once when empty, and clear() hands back what was waiting', async () => {
    const g = gate();
    const q = new KeyedQueue<string>({ concurrency: 1, capacity: 10, handle: g.handle });
    await q.idle();
    q.push('a', 'a');
    q.push('b', 'b');
    expect(q.clear()).toEqual(['b']);
    let idle = false;
    void q.idle().then(() => (idle = true));
    await g.release('a');
    expect(idle).toBe(true);
  });
});
