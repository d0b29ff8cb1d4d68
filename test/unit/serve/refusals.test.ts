// The refusal log's sampler (shared/serve/http/refusals.ts): the first few per reason per minute,
// then one summary line, whether or not the flood goes on into the next minute.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../shared/log.js';
import { MetricsRecorder } from '../../../shared/metrics/recorder.js';
import { LOG_PER_WINDOW, refusalSink } from '../../../shared/serve/http/refusals.js';

afterEach(() => vi.useRealTimers());

describe('refusalSink', () => {
  it('logs the first per reason per minute, then says how many it did not log', () => {
    vi.useFakeTimers();
    const lines: Record<string, unknown>[] = [];
    const log = createLogger({ env: {}, destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
    const sink = refusalSink(MetricsRecorder.off(), 'sweep', log, () => Date.now());
    for (let i = 0; i < 1000; i++) sink({ status: 401, reason: 'unauthenticated', why: 'no Authorization header' });
    sink({ status: 413, reason: 'too-large', why: 'big' });
    expect(lines.filter((l) => l.msg === 'refused')).toHaveLength(LOG_PER_WINDOW + 1);
    vi.advanceTimersByTime(60_000);
    expect(lines.filter((l) => l.msg !== 'refused')).toEqual([expect.objectContaining({ reason: 'unauthenticated', suppressed: 1000 - LOG_PER_WINDOW })]);
    sink({ status: 401, reason: 'unauthenticated', why: 'again' });
    expect(lines).toHaveLength(LOG_PER_WINDOW + 3);
  });
});
