import { describe, expect, it } from 'vitest';
import { fc, test as prop } from '@fast-check/vitest';
import { admit, admitAll, armOf, dueIn, entriesOf, entrySchema, scheduleOf, shardOf, withdraw, type DueEntry, type DueShard } from './due.js';

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const MIN = 60_000;
const entry = (uid: string, at: number, name = uid): DueEntry => ({ namespace: 'ml', name, uid, at });
const shardOfEntries = (...es: DueEntry[]): DueShard => new Map(es.map((e) => [e.uid, { namespace: e.namespace, name: e.name, at: e.at }]));

describe('scheduleOf: the horizon', () => {
  it('lists a pod due within the horizon, only rechecks one beyond it, schedules nothing without eligibleAt', () => {
    expect(scheduleOf(new Date(T0 + 20_000).toISOString(), T0, 30 * MIN)).toEqual({ kind: 'list', at: T0 + 20_000 });
    expect(scheduleOf(T0 + 30 * MIN, T0, 30 * MIN)).toEqual({ kind: 'list', at: T0 + 30 * MIN });
    expect(scheduleOf(T0 + 30 * MIN + 1, T0, 30 * MIN)).toEqual({ kind: 'recheck', at: T0 + 30 * MIN + 1 });
    expect(scheduleOf(undefined, T0, 30 * MIN)).toBeUndefined();
    expect(scheduleOf('not a time', T0, 30 * MIN)).toBeUndefined();
  });
});

describe('armOf: how far a timer is armed', () => {
  it('acts at the time within the horizon, at once when overdue, and only looks again beyond it', () => {
    expect(armOf(T0 + 5_000, T0, 30 * MIN)).toEqual({ delayMs: 5_000, acts: true });
    expect(armOf(T0 - 5_000, T0, 30 * MIN)).toEqual({ delayMs: 0, acts: true });
    expect(armOf(T0 + 40 * 24 * 60 * MIN, T0, 30 * MIN)).toEqual({ delayMs: 30 * MIN, acts: false });
  });
});

describe('dueIn: what a tick takes', () => {
  it('takes what is due by the look-ahead, soonest first, overdue included; drops what is overdue past the stale limit', () => {
    const es = [
      entry('late', T0 + 50_000),
      entry('soon', T0 + 5_000),
      entry('overdue', T0 - 2 * MIN),
      entry('next-tick', T0 + 61_000),
      entry('stale', T0 - 31 * MIN),
    ];
    const { due, expired } = dueIn(es, T0, T0 + 60_000, 30 * MIN);
    expect(due.map((e) => e.uid)).toEqual(['overdue', 'soon', 'late']);
    expect(expired.map((e) => e.uid)).toEqual(['stale']);
  });
});

describe('shardOf', () => {
  prop.prop([fc.uuid(), fc.integer({ min: 1, max: 64 })])('is stable and within the shards', (uid, shards) => {
    const s = shardOf(uid, shards);
    expect(s).toBeGreaterThanOrEqual(0);
    expect(s).toBeLessThan(shards);
    expect(shardOf(uid, shards)).toBe(s);
  });

  it('spreads uids over every shard', () => {
    const seen = new Set(Array.from({ length: 200 }, (_, i) => shardOf(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, 4)));
    expect([...seen].sort()).toEqual([0, 1, 2, 3]);
  });
});

describe('a shard: admit and withdraw', () => {
  it('adds, moves on a new time, writes nothing for the same entry, refuses one more than its capacity', () => {
    const a = entry('a', T0);
    const one = admit(new Map(), a, 2);
    expect(one.answer).toBe('added');
    expect(entriesOf(one.next!)).toEqual([a]);
    expect(admit(one.next!, a, 2)).toEqual({ answer: 'unchanged' });
    const moved = admit(one.next!, { ...a, at: T0 + 1 }, 2);
    expect(moved.answer).toBe('moved');
    expect(entriesOf(moved.next!)).toEqual([{ ...a, at: T0 + 1 }]);
    const two = admit(one.next!, entry('b', T0), 2).next!;
    expect(admit(two, entry('c', T0), 2)).toEqual({ answer: 'full' });
    // A pod already in a full shard still moves.
    expect(admit(two, { ...a, at: T0 + 5 }, 2).answer).toBe('moved');
  });

  it('admits many in one next shard (one write), counting each answer, and writes nothing when nothing changed', () => {
    const s = shardOfEntries(entry('a', T0));
    const out = admitAll(s, [entry('a', T0), entry('b', T0), { ...entry('a', T0), at: T0 + 9 }, entry('c', T0)], 2);
    expect(out.answer).toEqual({ added: 1, moved: 1, unchanged: 1, full: 1 });
    expect(entriesOf(out.next!).sort((x, y) => x.uid.localeCompare(y.uid))).toEqual([{ ...entry('a', T0), at: T0 + 9 }, entry('b', T0)]);
    expect(s.size).toBe(1);
    expect(admitAll(s, [entry('a', T0)], 2)).toEqual({ answer: { added: 0, moved: 0, unchanged: 1, full: 0 } });
  });

  it('withdraws the named uids only, and says when nothing changed', () => {
    const s = shardOfEntries(entry('a', T0), entry('b', T0), entry('c', T0));
    const out = withdraw(s, ['a', 'c', 'zz']);
    expect(out.answer).toBe(2);
    expect([...out.next!.keys()]).toEqual(['b']);
    expect(withdraw(s, ['zz'])).toEqual({ answer: 0 });
    expect(s.size).toBe(3);
  });

  it('an entry mangled by hand fails the schema', () => {
    expect(entrySchema.safeParse({ namespace: 'ml', name: 'p', at: T0 }).success).toBe(true);
    expect(entrySchema.safeParse({ namespace: 'ml', name: 'p', at: 'soon' }).success).toBe(false);
    expect(entrySchema.safeParse({ namespace: '', name: 'p', at: T0 }).success).toBe(false);
    // Names the API server would refuse: a GET of them is never sent.
    expect(entrySchema.safeParse({ namespace: 'ML', name: 'p', at: T0 }).success).toBe(false);
    expect(entrySchema.safeParse({ namespace: 'ml', name: '../p', at: T0 }).success).toBe(false);
    expect(entrySchema.safeParse({ namespace: 'ml', name: 'p q', at: T0 }).success).toBe(false);
  });
});
