// A ledger rebuilt blind (found unreadable, deleted or replaced): what it can no longer vouch
// for counts as spent until its window ends, and trips are unknown until a person resumes.
import { describe, expect, it } from 'vitest';
import { chargeDeferral, stopOf } from './deferral.js';
import { chargesOf, emptyLedger, normalize, rebuiltBlind, reserve, type LedgerState } from './ledger.js';
import { counterOf, type Meter, type Subject } from './meters.js';

const W = 15 * 60_000;
const T0 = Date.UTC(2026, 10, 25, 12, 0, 0); // on a 15-minute boundary
const total = (max: number, windowMs = W): Meter => ({ scope: 'cluster', max, windowMs, name: 'maxNoOfPodsToEvictTotal' });
const ml: Subject = { namespace: 'ml' };
const admit = (state: LedgerState, meters: Meter[], now: number) =>
  reserve(state, { holder: 'a', spent: {}, keep: {}, want: [chargesOf(meters, ml, now)], chunk: 0, holdMs: 60_000, now }).blocked[0];

describe('a ledger rebuilt blind', () => {
  const rebuilt = rebuiltBlind(emptyLedger(), 'unreadable (ledger.json: not JSON)', T0 + 5 * 60_000);

  it('counts the window under way as spent, whatever the limit', () => {
    expect(admit(rebuilt, [total(1000)], T0 + 6 * 60_000)?.meter.name).toBe('maxNoOfPodsToEvictTotal');
  });

  it('admits again once that window has ended, within the limit as usual', () => {
    expect(admit(rebuilt, [total(1)], T0 + W)).toBeUndefined();
    expect(admit(normalize(rebuilt, T0 + W), [total(1)], T0 + W + 1)).toBeUndefined();
  });

  it('holds each meter to its own window: a longer one stays spent longer', () => {
    const hour = total(10, 60 * 60_000);
    expect(admit(rebuilt, [hour], T0 + W)?.meter.windowMs).toBe(60 * 60_000);
    expect(admit(rebuilt, [hour], T0 + 60 * 60_000)).toBeUndefined();
  });

  it('says why a pod waits and when it frees, not that the budget was spent', () => {
    const meters = [total(5)];
    const ch = chargesOf(meters, ml, T0 + 6 * 60_000)[0]!;
    const d = chargeDeferral(rebuilt, ch, ml);
    expect(d).toMatchObject({ kind: 'ledger', budget: 'maxNoOfPodsToEvictTotal', freesAt: new Date(T0 + W).toISOString() });
    expect(d.why).toMatch(/ledger was unreadable \(ledger\.json: not JSON\) and rebuilt at .*unknown.*frees by/);
    const plain = chargeDeferral(emptyLedger(), ch, ml);
    expect(plain.kind).toBe('budget');
  });

  it('stops every removal under abort rules until the trips are known again; none without rules', () => {
    const rules = [{ scope: 'namespace' as const, percent: 50, minPods: 0 }];
    expect(stopOf(rebuilt, rules, ml)).toMatchObject({ kind: 'ledger', scope: 'cluster', budget: 'kubeTidy.brakes.abort' });
    expect(stopOf(rebuilt, [], ml)).toBeUndefined();
    const resumed: LedgerState = { ...rebuilt, blind: { ...rebuilt.blind!, trips: false } };
    expect(stopOf(resumed, rules, ml)).toBeUndefined();
  });

  it('keeps what a replacement holds, and is kept by every later write', () => {
    const c = counterOf(total(5), ml, T0)!;
    const replaced = rebuiltBlind({ ...emptyLedger(), counts: { [c]: 2 } }, 'replaced', T0 + 1);
    expect(replaced.counts[c]).toBe(2);
    const after = reserve(replaced, { holder: 'b', spent: {}, keep: {}, want: [], chunk: 0, holdMs: 60_000, now: T0 + 2 }).state;
    expect(after.blind).toEqual(replaced.blind);
  });
});
