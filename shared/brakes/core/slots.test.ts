// The ledger's concurrency entries: slots held per evacuation, not per window, and a blind
// rebuild that makes them unknown (never free) until a tick mends them from the pods.
import { describe, expect, it } from 'vitest';
import { chargesOf, emptyLedger, normalize, rebuiltBlind, reserve, type LedgerState } from './ledger.js';
import type { Meter } from './meters.js';
import { admitSlot, mendSlots, releaseSlots, slotsOf, slotsUnknown, takeSlots, unknownWhy, type Slot } from './slots.js';

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const slot = (uid: string, node: string, extra: Partial<Slot> = {}): Slot => ({ uid, pod: `ml/${uid}`, node, at: T0, ...extra });
const limits = { perCluster: 3, perNode: 2 };
const withSlots = (...slots: Slot[]): LedgerState => takeSlots(emptyLedger(), slots);

describe('a slot is admitted within the concurrency meters', () => {
  const rows: { sentence: string; held: Slot[]; uid: string; node: string; want: ReturnType<typeof admitSlot> }[] = [
    {
      sentence: 'a pod that holds one keeps it, whatever the limits',
      held: [slot('a', 'n1'), slot('b', 'n1'), slot('c', 'n2')],
      uid: 'a',
      node: 'n1',
      want: { ok: true, held: true },
    },
    { sentence: 'a new pod is admitted below both limits', held: [slot('a', 'n1')], uid: 'b', node: 'n1', want: { ok: true, held: false } },
    {
      sentence: 'the cluster-wide limit refuses the fourth',
      held: [slot('a', 'n1'), slot('b', 'n2'), slot('c', 'n3')],
      uid: 'd',
      node: 'n4',
      want: { ok: false, why: '3 evacuations in flight in the cluster (limit 3)' },
    },
    {
      sentence: "a node's limit refuses a third from that node",
      held: [slot('a', 'n1'), slot('b', 'n1')],
      uid: 'c',
      node: 'n1',
      want: { ok: false, why: '2 evacuations in flight from node n1 (limit 2)' },
    },
    {
      sentence: 'an unreadable slot counts against the cluster, not against a node (its node is unknown)',
      held: [slot('a', 'n1'), slot('x', '', { unreadable: 'not JSON', at: 0 })],
      uid: 'c',
      node: 'n1',
      want: { ok: true, held: false },
    },
  ];
  for (const r of rows) it(r.sentence, () => expect(admitSlot(r.held, r.uid, r.node, limits)).toEqual(r.want));
});

describe('slots in the ledger', () => {
  it('are taken and released by uid, and read back as they were taken', () => {
    const s = withSlots(slot('a', 'n1', { attempt: 2 }), slot('b', 'n2'));
    expect(slotsOf(s)).toEqual([slot('a', 'n1', { attempt: 2 }), slot('b', 'n2')]);
    expect(slotsOf(releaseSlots(s, ['a', 'nobody']))).toEqual([slot('b', 'n2')]);
  });

  it('have no expiry: the windows and holds moving on leave them as they are', () => {
    const s = withSlots(slot('a', 'n1'));
    expect(normalize(s, T0 + 365 * 24 * 3600_000).slots).toEqual(s.slots);
  });

  it("are carried by the brakes' own writes, which know nothing of them", () => {
    const meter: Meter = { scope: 'cluster', max: 5, windowMs: 60_000, name: 'maxNoOfPodsToEvictTotal' };
    const s = { ...withSlots(slot('a', 'n1')), slotsMended: T0 };
    const after = reserve(s, {
      holder: 'h',
      spent: {},
      keep: {},
      want: [chargesOf([meter], { namespace: 'ml' }, T0)],
      chunk: 0,
      holdMs: 60_000,
      now: T0,
    }).state;
    expect(after.slots).toEqual(s.slots);
    expect(after.slotsMended).toBe(T0);
  });

  it('a ledger that never went blind knows its slots, none written or some', () => {
    expect(slotsUnknown(emptyLedger())).toBeUndefined();
    expect(slotsUnknown(withSlots(slot('a', 'n1')))).toBeUndefined();
  });
});

describe('a ledger rebuilt blind', () => {
  const unreadable = rebuiltBlind(emptyLedger(), 'unreadable (ledger.json: not JSON)', T0 + 10);

  it('has its slots unknown, and says why no slot is taken until a tick mends them', () => {
    expect(slotsUnknown(unreadable)).toEqual(unreadable.blind);
    expect(unknownWhy(unreadable.blind!)).toMatch(
      /ledger was unreadable .* rebuilt at .*: the evacuations in flight are unknown until a tick writes their slots again from the pods' Started state/,
    );
  });

  it('keeps the slots a replacement holds, still unknown: it may not hold them all', () => {
    const replaced = rebuiltBlind(withSlots(slot('a', 'n1')), 'replaced', T0 + 10);
    expect(slotsOf(replaced)).toEqual([slot('a', 'n1')]);
    expect(slotsUnknown(replaced)).toBeDefined();
  });

  it('knows them again once a tick mended them after the rebuild, not by a mend from before it', () => {
    const mended = mendSlots(unreadable, [], [slot('a', 'n1')], T0 + 20);
    expect(slotsUnknown(mended)).toBeUndefined();
    expect(slotsOf(mended)).toEqual([slot('a', 'n1')]);
    const older = rebuiltBlind({ ...emptyLedger(), slotsMended: T0 }, 'deleted', T0 + 10);
    expect(slotsUnknown({ ...older, slotsMended: T0 })).toBeDefined();
  });

  it('a mend frees and writes back in one change', () => {
    const s = mendSlots(withSlots(slot('a', 'n1'), slot('b', 'n2')), ['a'], [slot('c', 'n3')], T0);
    expect(slotsOf(s).map((x) => x.uid)).toEqual(['b', 'c']);
    expect(s.slotsMended).toBe(T0);
  });
});
