import { describe, expect, it } from 'vitest';
import { countRequestSent, tallied } from './request-tally.js';

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe('request tallies', () => {
  it('count what is sent inside them, across awaits, and nothing outside', async () => {
    countRequestSent();
    const n = await tallied(async (t) => {
      countRequestSent();
      await tick();
      countRequestSent();
      return t.sent;
    });
    expect(n).toBe(2);
  });

  it('keep concurrent operations apart, and count a nested tally in the one around it', async () => {
    const [a, b] = await Promise.all([
      tallied(async (t) => {
        for (let i = 0; i < 3; i++) {
          await tick();
          countRequestSent();
        }
        return t.sent;
      }),
      tallied(async (outer) => {
        countRequestSent();
        const inner = await tallied(async (t) => (await tick(), countRequestSent(), countRequestSent(), t.sent));
        return { outer: outer.sent, inner };
      }),
    ]);
    expect(a).toBe(3);
    expect(b).toEqual({ outer: 3, inner: 2 });
  });
});
