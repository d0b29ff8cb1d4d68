import { describe, expect, it } from 'vitest';
import { contended, retryOnConflict } from './conflict.js';
import { TransientKubeError } from './errors.js';

/** A store whose writes meet `conflicts` conflicts before one lands. */
function run(conflicts: number, attempts: number) {
  const reads: number[] = [];
  let left = conflicts;
  return {
    reads,
    done: retryOnConflict(
      async (attempt) => (reads.push(attempt), `v${attempt}`),
      async (seen) => (left-- > 0 ? false : `wrote on ${seen}`),
      {
        attempts,
        exhausted: () => {
          throw contended('ns/cm', attempts, 'cm contended');
        },
      },
    ),
  };
}

describe('retryOnConflict', () => {
  it('writes on the first read when nobody wrote in between', async () => {
    const r = run(0, 3);
    await expect(r.done).resolves.toBe('wrote on v0');
    expect(r.reads).toEqual([0]);
  });

  it('reads again after each conflict and decides on the new copy', async () => {
    const r = run(2, 3);
    await expect(r.done).resolves.toBe('wrote on v2');
    expect(r.reads).toEqual([0, 1, 2]);
  });

  it('answers what `exhausted` says after the last attempt: here a transient conflict', async () => {
    const r = run(3, 3);
    await expect(r.done).rejects.toThrow(TransientKubeError);
    await expect(r.done).rejects.toThrow('ns/cm: still contended after 3 rounds');
  });

  it('stops at the first error, without reading again', async () => {
    const reads: number[] = [];
    const done = retryOnConflict(
      async (a) => void reads.push(a),
      async () => {
        throw new Error('forbidden');
      },
      { attempts: 5, exhausted: () => 'never' },
    );
    await expect(done).rejects.toThrow('forbidden');
    expect(reads).toEqual([0]);
  });
});
