import { describe, expect, it } from 'vitest';
import { MESSAGE_MAX, scrub } from './errors.js';

describe('scrubbing credentials from server messages', () => {
  it('redacts bearer tokens and URL credentials', () => {
    expect(scrub('Authorization: Bearer abc.def-ghi')).toBe('Authorization: Bearer [redacted]');
    expect(scrub('dial https://user:pw@h:6443/x')).toBe('dial https://[redacted]@h:6443/x');
  });

  it('takes linear time on a 1 MiB message made to make a backtracking pattern crawl', () => {
    // The old pattern (\w+:\/\/) scanned forward from every position of a long word run.
    const hostile = 'a'.repeat(1024 * 1024);
    const started = performance.now();
    const out = scrub(hostile);
    expect(performance.now() - started).toBeLessThan(200);
    expect(out.length).toBeLessThanOrEqual(MESSAGE_MAX + 3);
  });
});
