import { describe, expect, it } from 'vitest';
import { Notifier } from './notifier.js';
import { passCompletedEvent } from './build.js';
import type { OutEvent } from './types.js';

describe("a process's notifier, built by its host", () => {
  it('stamps events with the clock it was given, not the machine’s', async () => {
    const sent: OutEvent[] = [];
    const n = Notifier.fromEnv(
      { EVENTS_SINK: 'http://127.0.0.1:9/', EVENTS_SOURCE: '//clusters/a' },
      () => 1_000,
      async (e) => void sent.push(e),
    );
    expect(n.on).toBe(true);
    expect(n.stamp()).toMatchObject({ time: 1_000, source: '//clusters/a' });
    n.emit(passCompletedEvent(n.stamp(), { kind: 'sweep', pass: 'p', dryRun: false, outcome: 'complete', failures: { transient: 0, refused: 0 }, counts: {} }));
    await n.flush(1_000);
    expect(sent.map((e) => e.time)).toEqual([new Date(1_000).toISOString()]);
  });

  it('with no sink in its environment, is off: nothing built, sent or counted', async () => {
    const n = Notifier.fromEnv({});
    expect(n.on).toBe(false);
    expect(n.stats()).toBeUndefined();
    await n.flush(10);
  });

  it('refuses a bad setting (the host reports it at start)', () => {
    expect(() => Notifier.fromEnv({ EVENTS_SINK: 'http://a/', EVENTS_TOPIC: 'projects/p/topics/t' })).toThrow(/only one of EVENTS_SINK/);
  });

  it('two notifiers share nothing: each its own outbox', async () => {
    const a: OutEvent[] = [];
    const b: OutEvent[] = [];
    const na = Notifier.fromEnv({ EVENTS_SINK: 'http://127.0.0.1:9/' }, Date.now, async (e) => void a.push(e));
    const nb = Notifier.fromEnv({ EVENTS_SINK: 'http://127.0.0.1:9/' }, Date.now, async (e) => void b.push(e));
    na.emit(
      passCompletedEvent(na.stamp(), { kind: 'sweep', pass: 'p', dryRun: false, outcome: 'complete', failures: { transient: 0, refused: 0 }, counts: {} }),
    );
    await Promise.all([na.flush(1_000), nb.flush(1_000)]);
    expect([a.length, b.length]).toEqual([1, 0]);
  });
});
