import { describe, expect, it } from 'vitest';
import { fc, test as prop } from '@fast-check/vitest';
import { chargesOf, emptyLedger, normalize, reserve, tripOf, used, type LedgerState } from './ledger.js';
import { counterOf, metersOf, type Meter, type Subject } from './meters.js';
import { loadPolicy } from '../../policy/load.js';

const W = 15 * 60_000;
const T0 = Date.UTC(2026, 10, 25, 12, 0, 0); // on a 15-minute boundary
const total = (max: number): Meter => ({ scope: 'cluster', max, windowMs: W, name: 'maxNoOfPodsToEvictTotal' });
const perNs = (max: number): Meter => ({ scope: 'namespace', max, windowMs: W, name: 'maxNoOfPodsToEvictPerNamespace' });
const pod = (namespace = 'ml', node?: string, owner?: string): Subject => ({ namespace, ...(node ? { node } : {}), ...(owner ? { owner } : {}) });

function take(
  state: LedgerState,
  holder: string,
  meters: Meter[],
  subjects: Subject[],
  now: number,
  opts: { spent?: Record<string, number>; keep?: Record<string, number>; chunk?: number } = {},
) {
  return reserve(state, {
    holder,
    spent: opts.spent ?? {},
    keep: opts.keep ?? {},
    want: subjects.map((s) => chargesOf(meters, s, now)),
    chunk: opts.chunk ?? 0,
    holdMs: 60_000,
    now,
  });
}

describe('the ledger', () => {
  it('admits in order up to the limit and says which meter stopped the rest', () => {
    const r = take(
      emptyLedger(),
      'a',
      [total(5)],
      Array.from({ length: 7 }, () => pod()),
      T0,
    );
    expect(r.blocked.map((b) => b?.meter.name)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      'maxNoOfPodsToEvictTotal',
      'maxNoOfPodsToEvictTotal',
    ]);
    expect(Object.values(r.grants)).toEqual([5]);
  });

  it("counts another holder's unsettled units as spent, so two instances never both take the last one", () => {
    const a = take(emptyLedger(), 'a', [total(2)], [pod(), pod()], T0);
    const b = take(a.state, 'b', [total(2)], [pod()], T0 + 1);
    expect(b.blocked[0]?.meter.name).toBe('maxNoOfPodsToEvictTotal');
  });

  it('settles: spent units become counts, the rest goes back', () => {
    const meters = [total(3)];
    const a = take(emptyLedger(), 'a', meters, [pod(), pod(), pod()], T0);
    const c = counterOf(meters[0]!, pod(), T0)!;
    // one removed, one refused by a PDB (not spent, given back), one still in flight (kept)
    const settled = reserve(a.state, { holder: 'a', spent: { [c]: 1 }, keep: { [c]: 1 }, want: [], chunk: 0, holdMs: 60_000, now: T0 + 10 });
    expect(settled.state.counts[c]).toBe(1);
    expect(used(settled.state, c)).toBe(2);
    expect(take(settled.state, 'b', meters, [pod(), pod()], T0 + 11).blocked.map((x) => x === undefined)).toEqual([true, false]);
  });

  it('charges an expired hold in full: a killed holder loses its chunk and nothing is double-spent', () => {
    const meters = [total(4)];
    const c = counterOf(meters[0]!, pod(), T0)!;
    const a = take(emptyLedger(), 'a', meters, [pod(), pod(), pod()], T0);
    const later = normalize(a.state, T0 + 60_001);
    expect(later.holds).toEqual({});
    expect(later.counts[c]).toBe(3);
    expect(take(later, 'b', meters, [pod(), pod()], T0 + 60_002).blocked.map((x) => x === undefined)).toEqual([true, false]);
  });

  it('rolls over with the window: counts of a window that ended are dropped', () => {
    const meters = [total(1)];
    const a = take(emptyLedger(), 'a', meters, [pod()], T0);
    const c = counterOf(meters[0]!, pod(), T0)!;
    const settled = reserve(a.state, { holder: 'a', spent: { [c]: 1 }, keep: {}, want: [], chunk: 0, holdMs: 60_000, now: T0 + 1 });
    expect(take(settled.state, 'b', meters, [pod()], T0 + W - 1).blocked[0]).toBeDefined();
    const next = take(settled.state, 'b', meters, [pod()], T0 + W);
    expect(next.blocked[0]).toBeUndefined();
    expect(next.state.counts[c]).toBeUndefined();
  });

  it('a namespace limit holds back only that namespace; an unscheduled pod has no node limit', () => {
    const meters: Meter[] = [perNs(1), { scope: 'node', max: 1, windowMs: W, name: 'maxNoOfPodsToEvictPerNode' }];
    const r = take(emptyLedger(), 'a', meters, [pod('a', 'n1'), pod('a', 'n2'), pod('b', 'n1'), pod('b'), pod('c')], T0);
    expect(r.blocked.map((b) => b?.meter.name)).toEqual([undefined, 'maxNoOfPodsToEvictPerNamespace', 'maxNoOfPodsToEvictPerNode', undefined, undefined]);
  });

  it("the event path's chunk takes at most a quarter of what is left", () => {
    const meters = [total(100)];
    const c = counterOf(meters[0]!, pod(), T0)!;
    expect(take(emptyLedger(), 'a', meters, [pod()], T0, { chunk: 8 }).grants[c]).toBe(1 + 8);
    expect(take(emptyLedger(), 'a', [total(5)], [pod()], T0, { chunk: 8 }).grants[c]).toBe(1 + 1);
    expect(take(emptyLedger(), 'a', [total(2)], [pod()], T0, { chunk: 8 }).grants[c]).toBe(1);
  });

  it('meters of the same scope and window share their counters (the total and a cluster rate of 15m)', () => {
    const policy = loadPolicy({
      apiVersion: 'descheduler/v1alpha2',
      kind: 'DeschedulerPolicy',
      maxNoOfPodsToEvictTotal: 10,
      profiles: [{ name: 'p', pluginConfig: [], plugins: {} }],
      kubeTidy: { brakes: { rates: [{ max: 3, per: '15m' }] } },
    }).policy;
    const meters = metersOf(policy);
    expect(new Set(meters.map((m) => counterOf(m, pod(), T0))).size).toBe(1);
    const r = take(emptyLedger(), 'a', meters, [pod(), pod(), pod(), pod()], T0);
    expect(r.blocked.map((b) => b?.meter.name)).toEqual([undefined, undefined, undefined, 'kubeTidy.brakes.rates[0]']);
  });

  it('a trip stands while a rule at or below its percent remains; raising the rule resumes', () => {
    const state = {
      ...emptyLedger(),
      trips: { 'namespace|ml': { scope: 'namespace' as const, key: 'ml', percent: 30, at: T0, pass: 'p', selected: 9, considered: 10 } },
    };
    expect(tripOf(state, [{ scope: 'namespace', percent: 30, minPods: 0 }], pod('ml'))).toBeDefined();
    expect(tripOf(state, [{ scope: 'namespace', percent: 30, minPods: 0 }], pod('other'))).toBeUndefined();
    expect(tripOf(state, [{ scope: 'namespace', percent: 50, minPods: 0 }], pod('ml'))).toBeUndefined();
    expect(tripOf(state, [], pod('ml'))).toBeUndefined();
  });

  it('a pass (and its shards) is not stopped by its own trip: it recorded it first, to keep what came before the line', () => {
    const state = {
      ...emptyLedger(),
      trips: { 'namespace|ml': { scope: 'namespace' as const, key: 'ml', percent: 30, at: T0, pass: 'p1', selected: 9, considered: 10 } },
    };
    const rules = [{ scope: 'namespace' as const, percent: 30, minPods: 0 }];
    expect(tripOf(state, rules, pod('ml'), 'p1')).toBeUndefined();
    expect(tripOf(state, rules, pod('ml'), 'p2')?.pass).toBe('p1');
    expect(tripOf(state, rules, pod('ml'))?.pass).toBe('p1');
  });

  // The property the brakes stand on: whatever the interleaving of holders, reservations,
  // removals, refusals, settlements, kills and clock steps (holds expiring among them), the
  // removals made in a window never exceed its limit, and neither does what the ledger counts.
  prop.prop([
    fc.array(
      fc.record({
        holder: fc.integer({ min: 0, max: 3 }),
        op: fc.constantFrom('take', 'take', 'remove', 'remove', 'refuse', 'settle', 'kill', 'tick'),
        ns: fc.constantFrom('a', 'b'),
        n: fc.integer({ min: 1, max: 6 }),
      }),
      { maxLength: 120 },
    ),
  ])('random interleavings never remove more than a limit allows in a window', (steps) => {
    const meters = [total(7), perNs(4)];
    const max = (c: string) => (c.startsWith('cluster') ? 7 : 4);
    let state = emptyLedger();
    let now = T0;
    const removed = new Map<string, number>(); // counter -> removals made on its units
    const fresh = () => ({ grants: {} as Record<string, number>, spent: {} as Record<string, number>, tickets: [] as string[][] });
    const local = Array.from({ length: 4 }, fresh);
    for (const s of steps) {
      const h = local[s.holder]!;
      const id = `h${s.holder}`;
      if (s.op === 'tick') now += s.n * 20_000;
      else if (s.op === 'kill') local[s.holder] = fresh();
      else if (s.op === 'take' || s.op === 'settle') {
        const keep = s.op === 'settle' ? {} : Object.fromEntries(Object.entries(h.grants).map(([c, g]) => [c, g - (h.spent[c] ?? 0)]));
        const want = s.op === 'settle' ? [] : Array.from({ length: s.n }, () => chargesOf(meters, pod(s.ns), now));
        const r = reserve(state, { holder: id, spent: h.spent, keep, want, chunk: 2, holdMs: 60_000, now });
        state = r.state;
        h.spent = {};
        h.grants = { ...r.grants };
        if (s.op === 'settle') h.tickets = [];
        r.blocked.forEach((b, i) => void (b === undefined && h.tickets.push(want[i]!.map((c) => c.counter))));
      } else {
        const t = h.tickets.shift();
        if (!t) continue;
        if (s.op === 'remove') {
          for (const c of t) {
            h.spent[c] = (h.spent[c] ?? 0) + 1;
            removed.set(c, (removed.get(c) ?? 0) + 1);
          }
        }
      }
      for (const [c, n] of removed) expect(n, c).toBeLessThanOrEqual(max(c));
      const view = normalize(state, now);
      for (const c of Object.keys(view.counts)) expect(used(view, c), c).toBeLessThanOrEqual(max(c));
    }
  });
});
