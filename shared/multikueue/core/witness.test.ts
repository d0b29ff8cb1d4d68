import { describe, expect, it } from 'vitest';
import { changedWitness, witnessedUids } from './witness.js';

const raw = { u1: 'multikueue ml/train', u2: 'other ml/eval', u3: 'multikueue ml/old' };

describe('the witness record', () => {
  it('reads only the entries of our origin', () => {
    expect([...witnessedUids(raw, 'multikueue')]).toEqual([
      ['u1', 'ml/train'],
      ['u3', 'ml/old'],
    ]);
  });

  it('adds what was seen, drops only our own entries, and keeps other origins as they are', () => {
    expect(changedWitness(raw, 'multikueue', { add: new Map([['u4', 'ml/new']]), drop: ['u3', 'u2'] })).toEqual({
      u1: 'multikueue ml/train',
      u2: 'other ml/eval',
      u4: 'multikueue ml/new',
    });
  });

  it('asks for no write when nothing of ours changes', () => {
    expect(changedWitness(raw, 'multikueue', { add: new Map(), drop: ['u2'] })).toBeUndefined();
  });
});
