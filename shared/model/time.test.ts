import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { formatDuration, toMillis } from './time.js';

describe('toMillis', () => {
  it.each([
    ['2026-06-01T12:00:00Z', Date.UTC(2026, 5, 1, 12)],
    ['2026-06-01T12:00:00.250Z', Date.UTC(2026, 5, 1, 12, 0, 0, 250)],
    ['2026-06-01T14:00:00+02:00', Date.UTC(2026, 5, 1, 12)],
    [new Date(Date.UTC(2020, 0, 1)), Date.UTC(2020, 0, 1)],
  ])('reads %s', (input, want) => {
    expect(toMillis(input)).toBe(want);
  });

  it('is NaN for missing or unreadable times', () => {
    expect(toMillis(undefined)).toBeNaN();
    expect(toMillis('not a time at all!!')).toBeNaN();
    expect(toMillis('2026-13-45T99:99:99Z')).toBeNaN();
  });

  test.prop([fc.date({ min: new Date('1971-01-01'), max: new Date('2999-12-31'), noInvalidDate: true })])(
    'agrees with Date.parse on every ISO time, with or without milliseconds',
    (d) => {
      const iso = d.toISOString();
      expect(toMillis(iso)).toBe(Date.parse(iso));
      const seconds = `${iso.slice(0, 19)}Z`;
      expect(toMillis(seconds)).toBe(Date.parse(seconds));
    },
  );
});

describe('formatDuration', () => {
  it.each([
    [45, '45s'],
    [125, '2m5s'],
    [3 * 3600 + 60, '3h1m'],
    [2 * 86400 + 3600, '2d1h'],
    [Number.NaN, 'unknown'],
  ])('%s seconds reads %s', (s, want) => {
    expect(formatDuration(s)).toBe(want);
  });
});
