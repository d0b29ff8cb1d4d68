import { describe, expect, it } from 'vitest';
import { Outbox, type Send } from './outbox.js';
import type { OutEvent } from './types.js';

const ev = (id: string, type = 'dev.kube-tidy.pod.deleted.v1'): OutEvent => ({
  id,
  type,
  source: 'kube-tidy/sweep',
  time: '2026-01-01T00:00:00.000Z',
  dataschema: 'https://kube-tidy.dev/schemas/events/pod-decision.v1.json',
  data: {},
});

const settings = { buffer: 100, inFlight: 2, sendTimeoutMs: 200, sinkDownMs: 60_000 };

/** A sender whose sends the test answers one by one. */
function manual() {
  const pending: { id: string; ok: () => void; fail: (e: Error) => void }[] = [];
  const started: string[] = [];
  const send: Send = (e) =>
    new Promise<void>((ok, fail) => {
      started.push(e.id);
      pending.push({ id: e.id, ok, fail });
    });
  const answer = async (id: string, good = true) => {
    const p = pending.find((x) => x.id === id)!;
    pending.splice(pending.indexOf(p), 1);
    if (good) p.ok();
    else p.fail(new Error('no'));
    await new Promise((r) => setImmediate(r));
  };
  return { send, started, answer, pending };
}

describe('the outbox', () => {
  it('sends what is emitted, a few at a time, in the order emitted', async () => {
    const m = manual();
    const box = new Outbox(settings, m.send);
    for (const id of ['a', 'b', 'c', 'd']) box.emit(ev(id));
    expect(m.started).toEqual(['a', 'b']);
    await m.answer('a');
    expect(m.started).toEqual(['a', 'b', 'c']);
    await m.answer('b');
    await m.answer('c');
    await m.answer('d');
    expect(box.snapshot()).toEqual({ sent: 4, failed: 0, dropped: 0, queued: 0, inFlight: 0 });
  });

  it('is bounded: past the buffer, new events are dropped and counted, and emit returns at once', () => {
    const m = manual();
    const box = new Outbox({ ...settings, buffer: 3, inFlight: 1 }, m.send);
    for (let i = 0; i < 10; i++) box.emit(ev(String(i)));
    // One in flight, three waiting, six dropped.
    expect(box.snapshot()).toMatchObject({ queued: 3, inFlight: 1, dropped: 6 });
  });

  it('a failed send is counted, not retried, and opens a sink-down period that drops what waits and what comes at once', async () => {
    let now = 1_000;
    const m = manual();
    const box = new Outbox({ ...settings, inFlight: 1, sinkDownMs: 5_000 }, m.send, () => now);
    box.emit(ev('a'));
    box.emit(ev('b'));
    box.emit(ev('c'));
    await m.answer('a', false);
    expect(box.down).toBe(true);
    // b and c were waiting: dropped, not sent.
    expect(box.snapshot()).toEqual({ sent: 0, failed: 1, dropped: 2, queued: 0, inFlight: 0 });
    box.emit(ev('d'));
    expect(m.started).toEqual(['a']);
    expect(box.stats.dropped).toBe(3);
    // Once the period is over, the sink is tried again.
    now += 5_001;
    box.emit(ev('e'));
    expect(m.started).toEqual(['a', 'e']);
    await m.answer('e');
    expect(box.stats.sent).toBe(1);
  });

  it('a send with no answer times out (failed), even when the sender ignores the abort', async () => {
    const box = new Outbox({ ...settings, sendTimeoutMs: 30 }, () => new Promise<void>(() => undefined));
    box.emit(ev('a'));
    await new Promise((r) => setTimeout(r, 80));
    expect(box.snapshot()).toMatchObject({ failed: 1, inFlight: 0 });
    expect(box.down).toBe(true);
  });

  it('a sender that throws at once costs only a counter', async () => {
    const box = new Outbox(settings, () => {
      throw new Error('boom');
    });
    expect(() => box.emit(ev('a'))).not.toThrow();
    await new Promise((r) => setImmediate(r));
    expect(box.stats.failed).toBe(1);
  });

  it('flush waits for what is queued, at most maxMs, and not at all while the sink is down', async () => {
    const m = manual();
    const box = new Outbox({ ...settings, inFlight: 1 }, m.send);
    box.emit(ev('a'));
    let t = Date.now();
    await box.flush(50);
    expect(Date.now() - t).toBeGreaterThanOrEqual(45);
    expect(Date.now() - t).toBeLessThan(500);
    // Answered while a flush waits: it resolves then.
    const flushed = box.flush(5_000);
    t = Date.now();
    await m.answer('a');
    await flushed;
    expect(Date.now() - t).toBeLessThan(500);
    // Down: a flush returns at once.
    box.emit(ev('b'));
    await m.answer('b', false);
    box.emit(ev('c'));
    t = Date.now();
    await box.flush(5_000);
    expect(Date.now() - t).toBeLessThan(50);
  });

  it('a flush that used its whole cap (a slow sink) makes the next ones return at once for the sink-down period; the sends go on', async () => {
    let now = 1_000;
    const m = manual();
    const box = new Outbox({ ...settings, inFlight: 1, sinkDownMs: 5_000 }, m.send, () => now);
    box.emit(ev('a'));
    box.emit(ev('b'));
    await box.flush(30);
    let t = Date.now();
    await box.flush(5_000);
    expect(Date.now() - t).toBeLessThan(50);
    await m.answer('a');
    expect(m.started).toEqual(['a', 'b']);
    // Past the period, a flush waits again.
    now += 5_001;
    t = Date.now();
    await box.flush(40);
    expect(Date.now() - t).toBeGreaterThanOrEqual(35);
    await m.answer('b');
    expect(box.stats.sent).toBe(2);
  });

  it("an event waits for one in flight with a key in common (a pod's events stay in order), and nothing overtakes it", async () => {
    const m = manual();
    const box = new Outbox({ ...settings, inFlight: 4 }, m.send);
    box.emit(ev('pod-x-1'), { keys: ['x'] });
    box.emit(ev('pod-x-2'), { keys: ['x'] });
    box.emit(ev('pod-y'), { keys: ['y'] });
    expect(m.started).toEqual(['pod-x-1']);
    await m.answer('pod-x-1');
    expect(m.started).toEqual(['pod-x-1', 'pod-x-2', 'pod-y']);
  });

  it('a barrier starts only once everything before it is done', async () => {
    const m = manual();
    const box = new Outbox({ ...settings, inFlight: 4 }, m.send);
    box.emit(ev('a'), { keys: ['a'] });
    box.emit(ev('b'), { keys: ['b'] });
    box.emit(ev('summary'), { barrier: true });
    expect(m.started).toEqual(['a', 'b']);
    await m.answer('b');
    expect(m.started).toEqual(['a', 'b']);
    await m.answer('a');
    expect(m.started).toEqual(['a', 'b', 'summary']);
  });

  it('holds no more than the buffer however long the sink is slow (10,000 emitted, 50 kept)', () => {
    const box = new Outbox({ ...settings, buffer: 50, inFlight: 1 }, () => new Promise<void>(() => undefined));
    const t = performance.now();
    for (let i = 0; i < 10_000; i++) box.emit(ev(String(i)));
    expect(performance.now() - t).toBeLessThan(1_000);
    expect(box.snapshot()).toMatchObject({ queued: 50, inFlight: 1, dropped: 10_000 - 51 });
  });
});
