// The objects' tick is pod cleanup's tick loop (issue 44): ticks at once join one loop, and an
// entry the pass decided on (here: not selected) leaves the lists, so the next tick does not
// read its objects again. No cluster: lists and pass are recorded (on the real control plane:
// test/integration/objects/due-tick.test.ts).
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { DueEntry, DueList } from '../../cleanup/due/index.js';
import { OBJECT_KINDS, type ObjectKind } from '../../policy/objects-schema.js';
import type { ObjectDueEntry, ObjectsDue } from './due.js';
import { ObjectsTick } from './due-tick.js';
import type { ObjectsPassSummary } from './pass.js';

const empty: ObjectsPassSummary = { rules: 1, considered: 0, results: [], kept: [], eligible: [], notServed: [], failures: { transient: 0, refused: 0 } };

/** Lists held in memory, counting reads; a pass that selects nothing, counting calls per uid. */
function world(jobs: DueEntry[]) {
  const held: Record<ObjectKind, Map<string, DueEntry>> = {
    Job: new Map(jobs.map((e) => [e.uid, e])),
    PersistentVolumeClaim: new Map(),
    Workload: new Map(),
  };
  const counts = { reads: 0, passes: new Map<string, number>() };
  const listOf = (kind: ObjectKind) =>
    ({
      read: async () => (counts.reads++, [...held[kind].values()]),
      remove: async (uids: Iterable<string>) => [...uids].filter((u) => held[kind].delete(u)).length,
    }) as unknown as DueList;
  const due = {
    h: { now: () => Date.now(), log: pino({ level: 'silent' }), settings: { dryRun: false } },
    o: { horizonMs: 3_600_000 },
    lists: Object.fromEntries(OBJECT_KINDS.map((k) => [k, listOf(k)])),
    // No ttl rules here: only the objects kinds' lists.
    ttlKinds: () => [],
    listOf(this: { lists: Record<string, DueList> }, id: { kind: string }) {
      return this.lists[id.kind];
    },
    timers: { clear: () => undefined },
    pass: async (e: ObjectDueEntry) => (counts.passes.set(e.uid, (counts.passes.get(e.uid) ?? 0) + 1), empty),
    forgetListed: () => undefined,
  } as unknown as ObjectsDue;
  return { tick: new ObjectsTick(due, { pollMs: 1_000 }), held, counts };
}

/** A deadline that leaves the loop ~1.2 s to hold (the tick keeps 3 s for its answer): two looks at the lists, a second apart. */
const soon = () => Date.now() + 4_200;

describe('the objects due lists’ tick', () => {
  it('drops an entry the pass decided not selected: the next tick reads nothing for it', async () => {
    const { tick, held, counts } = world([{ namespace: 'ml', name: 'forged', uid: 'j1', at: Date.now() - 1_000 }]);
    const first = await tick.tick(soon());
    expect(first).toMatchObject({ outcome: 'ticked', due: 1, outcomes: { 'nothing-to-do': 1 }, removed: 1 });
    expect(held.Job.size).toBe(0);
    await tick.tick(soon());
    expect(counts.passes.get('j1')).toBe(1);
  });

  it('20 ticks in a burst run one loop: the lists are read as often as for one, the others join at once', async () => {
    const one = world([]);
    await one.tick.tick(soon());
    const many = world([]);
    // A flood arrives over some milliseconds, not in one: each tick looks a little further ahead,
    // within a poll of the first (what a loop's next look covers anyway), however late timers fire.
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => new Promise((r) => setTimeout(r, i * 5)).then(() => many.tick.tick(soon()))));
    expect(answers.filter((a) => a.outcome === 'ticked')).toHaveLength(1);
    expect(answers.filter((a) => a.outcome === 'joined')).toHaveLength(19);
    // A poll more or less, where the loops' clocks fall differently.
    expect(many.counts.reads).toBeLessThanOrEqual(one.counts.reads + OBJECT_KINDS.length);
  });
});
