import { describe, expect, it } from 'vitest';
import { Carry, CARRY_MAX_MS, type CarriedWrite } from './carry.js';
import { policyOf } from '../../../test/fixtures/policy.js';

const policy = policyOf([{ name: 'PodLifeTime', args: { states: ['Failed'] } }]);
const writes = (n: number) => Array.from({ length: n }, (_, i) => ({ decision: { uid: `u${i}` }, target: { uid: `u${i}` } }) as unknown as CarriedWrite);

describe('Carry: what one tick did not get to, for the next tick of this instance', () => {
  it('is taken once, whole, with the time its decisions were made', () => {
    const c = new Carry();
    c.hold(policy, false, { writes: writes(3), at: 1000 });
    expect(c.size).toBe(3);
    expect(c.take(policy, false, 2000)).toEqual({ writes: writes(3), at: 1000 });
    expect(c.take(policy, false, 2000)).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('is dropped for another policy (a reload is a new object), the other dry-run mode, or once older than CARRY_MAX_MS', () => {
    const c = new Carry();
    const again = policyOf([{ name: 'PodLifeTime', args: { states: ['Failed'] } }]);
    c.hold(policy, false, { writes: writes(2), at: 0 });
    expect(c.take(again, false, 1)).toBeUndefined();
    expect(c.take(policy, false, 1)).toBeUndefined(); // and it is gone, not kept for the old policy
    c.hold(policy, false, { writes: writes(2), at: 0 });
    expect(c.take(policy, true, 1)).toBeUndefined();
    c.hold(policy, false, { writes: writes(2), at: 0 });
    expect(c.take(policy, false, CARRY_MAX_MS + 1)).toBeUndefined();
    c.hold(policy, false, { writes: writes(2), at: 0 });
    expect(c.take(policy, false, CARRY_MAX_MS)?.writes).toHaveLength(2);
  });

  it('a list to go on with is held even with nothing left to write', () => {
    const c = new Carry();
    c.hold(policy, false, { writes: [], at: 0, resume: 'token' });
    expect(c.take(policy, false, 1)).toEqual({ writes: [], at: 0, resume: 'token' });
  });

  it('holding nothing clears what was held', () => {
    const c = new Carry();
    c.hold(policy, false, { writes: writes(2), at: 0 });
    c.hold(policy, false, { writes: [], at: 0 });
    expect(c.take(policy, false, 1)).toBeUndefined();
  });
});
