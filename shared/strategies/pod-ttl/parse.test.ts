import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { parseJanitorExpires, parseJanitorTtl, parseKyvernoTtl, type Parsed } from './parse.js';

// Each convention's formats, as a table: the value, and the instant it names (or why not).

const CREATED = Date.parse('2026-06-01T10:00:00Z');
const when = (p: Parsed | 'forever') => (p === 'forever' ? 'forever' : p.ok ? new Date(p.at).toISOString() : `refused: ${p.why}`);

describe('cleanup.kyverno.io/ttl', () => {
  it.each([
    { value: '5m', want: '2026-06-01T10:05:00.000Z' },
    { value: '4h', want: '2026-06-01T14:00:00.000Z' },
    { value: '1h30m', want: '2026-06-01T11:30:00.000Z' },
    { value: '1.5h', want: '2026-06-01T11:30:00.000Z' },
    { value: '90s', want: '2026-06-01T10:01:30.000Z' },
    { value: '0', want: '2026-06-01T10:00:00.000Z' },
    { value: '1d', want: '2026-06-02T10:00:00.000Z' },
    { value: '2w', want: '2026-06-15T10:00:00.000Z' },
    { value: '1d12h', want: '2026-06-02T22:00:00.000Z' },
    { value: '2023-10-04T003000Z', want: '2023-10-04T00:30:00.000Z' },
    { value: '2023-10-04', want: '2023-10-04T00:00:00.000Z' },
    { value: '2024-02-29', want: '2024-02-29T00:00:00.000Z' },
  ])('$value is $want', ({ value, want }) => {
    expect(when(parseKyvernoTtl(value, CREATED))).toBe(want);
  });

  it.each([
    { value: '', why: 'neither a duration' },
    { value: 'soon', why: 'neither a duration' },
    { value: '5 minutes', why: 'neither a duration' },
    { value: '-5m', why: 'neither a duration' },
    { value: '1d-5m', why: 'neither a duration' },
    { value: '5', why: 'neither a duration' },
    { value: '1y', why: 'neither a duration' },
    { value: '2023-10-04T00:30:00Z', why: 'neither a duration' },
    { value: '2023-10-04T0030Z', why: 'neither a duration' },
    { value: '2023-02-30', why: 'not a valid date and time' },
    { value: '2023-10-04T243000Z', why: 'not a valid date and time' },
    { value: '2023-13-01', why: 'not a valid date and time' },
    { value: '99999999999999h', why: 'out of range' },
    { value: 'x'.repeat(65), why: 'too long' },
  ])('$value is refused ($why)', ({ value, why }) => {
    const p = parseKyvernoTtl(value, CREATED);
    expect(p.ok).toBe(false);
    expect(!p.ok && p.why).toContain(why);
  });

  it('a duration needs a creation time to count from; an absolute time does not', () => {
    expect(when(parseKyvernoTtl('5m', Number.NaN))).toContain('no creationTimestamp');
    expect(when(parseKyvernoTtl('2023-10-04', Number.NaN))).toBe('2023-10-04T00:00:00.000Z');
  });
});

describe('janitor/ttl', () => {
  it.each([
    { value: '60s', want: '2026-06-01T10:01:00.000Z' },
    { value: '5m', want: '2026-06-01T10:05:00.000Z' },
    { value: '8h', want: '2026-06-01T18:00:00.000Z' },
    { value: '7d', want: '2026-06-08T10:00:00.000Z' },
    { value: '2w', want: '2026-06-15T10:00:00.000Z' },
    { value: 'forever', want: 'forever' },
    { value: 'Forever', want: 'forever' },
    // kube-janitor's TTL is one number and one unit: Go's compound durations are not TTLs there.
    { value: '1h30m', want: 'refused: "1h30m" is not a TTL such as 60s, 5m, 8h, 7d or 2w (or forever)' },
    { value: '1.5h', want: 'refused: "1.5h" is not a TTL such as 60s, 5m, 8h, 7d or 2w (or forever)' },
    { value: '24', want: 'refused: "24" is not a TTL such as 60s, 5m, 8h, 7d or 2w (or forever)' },
    { value: '24H', want: 'refused: "24H" is not a TTL such as 60s, 5m, 8h, 7d or 2w (or forever)' },
  ])('$value is $want', ({ value, want }) => {
    expect(when(parseJanitorTtl(value, CREATED))).toBe(want);
  });
});

describe('janitor/expires', () => {
  it.each([
    { value: '2019-02-25T09:26:14Z', want: '2019-02-25T09:26:14.000Z' },
    { value: '2019-02-25T09:26', want: '2019-02-25T09:26:00.000Z' },
    { value: '2019-02-25', want: '2019-02-25T00:00:00.000Z' },
    { value: '2019-02-25T09:26:14+02:00', want: 'refused' },
    { value: '2019-02-25 09:26', want: 'refused' },
    { value: '2019-2-25', want: 'refused' },
    { value: '2019-02-29', want: 'refused' },
    { value: 'tomorrow', want: 'refused' },
  ])('$value is $want', ({ value, want }) => {
    const w = when(parseJanitorExpires(value));
    expect(w.startsWith('refused') ? 'refused' : w).toBe(want);
  });
});

describe('any value', () => {
  // Annotation values are anything a user or a tool wrote: reading one must never throw, and a
  // value it accepts names a real instant.
  const values = fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'0123456789dwhmsnuµ.T:Z-+ ') }), fc.string({ unit: 'binary' }));
  test.prop([values, fc.oneof(fc.double(), fc.constant(CREATED))])('is read or refused, never thrown over', (value, created) => {
    for (const p of [parseKyvernoTtl(value, created), parseJanitorTtl(value, created), parseJanitorExpires(value)]) {
      if (p === 'forever') continue;
      if (p.ok) expect(Number.isNaN(new Date(p.at).getTime())).toBe(false);
      else expect(p.why).toMatch(/\S/);
    }
  });
});
