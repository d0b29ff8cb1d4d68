import { describe, expect, it } from 'vitest';
import { EventSeries, groupKey, type Removal } from './event-series.js';

const job = { apiVersion: 'batch/v1', kind: 'Job', name: 'train', uid: 'job-uid', controller: true };
const settings = { windowMs: 60_000, intervalMs: 10_000, named: 3 };
const removal = (pod: string, at: number, o: Partial<Removal> = {}): Removal => ({
  namespace: 'ml',
  pod,
  owner: job,
  reason: 'Deleted',
  action: 'Delete',
  strategy: 'PodLifeTime',
  at,
  ...o,
});

/** `n` pods of the Job removed from `start`, one every `every` ms: what observe answered for each. */
function storm(series: EventSeries, n: number, start = 0, every = 10): string[] {
  return Array.from({ length: n }, (_, i) => series.observe(removal(`train-${i}`, start + i * every)));
}

describe('EventSeries: one Event that counts per owner and window', () => {
  it('a lone removal gets its own Event at once and nothing more: no series is ever written', () => {
    const s = new EventSeries(settings);
    expect(s.observe(removal('train-0', 0))).toBe('own');
    expect(s.due(10_000)).toEqual([]);
    expect(s.due(60_000)).toEqual([]);
    expect(s.drain()).toEqual([]);
    expect(s.size).toBe(0);
  });

  it('a storm of 500 pods of one Job: the first has its own Event, the other 499 are counted in one series that names the first few', () => {
    const s = new EventSeries(settings);
    const answers = storm(s, 500);
    expect(answers[0]).toBe('own');
    expect(answers.slice(1).every((a) => a === 'folded')).toBe(true);
    const [w, ...more] = s.drain();
    expect(more).toEqual([]);
    expect(w).toMatchObject({
      create: true,
      count: 500,
      first: 'train-0',
      named: ['train-1', 'train-2', 'train-3'],
      namespace: 'ml',
      owner: job,
      firstAt: 0,
      lastAt: 4990,
    });
  });

  it('a series is written at most once per interval while the storm lasts, then at the window end: writes bounded by the window, not the pods', () => {
    const s = new EventSeries(settings);
    const writes: { at: number; count: number; create: boolean }[] = [];
    // 6,000 pods over the whole window, one every 10 ms; the caller asks `due` after each.
    for (let i = 0; i < 6000; i++) {
      const at = i * 10;
      s.observe(removal(`train-${i}`, at));
      for (const w of s.due(at)) writes.push({ at, count: w.count, create: w.create });
    }
    for (const w of s.due(60_000)) writes.push({ at: 60_000, count: w.count, create: w.create });
    expect(writes.length).toBeLessThanOrEqual(settings.windowMs / settings.intervalMs + 1);
    expect(writes[0]).toMatchObject({ at: 10_000, create: true });
    expect(writes.slice(1).every((w) => !w.create)).toBe(true);
    for (let i = 1; i < writes.length; i++) expect(writes[i]!.at - writes[i - 1]!.at).toBeGreaterThanOrEqual(settings.intervalMs);
    expect(writes.at(-1)!.count).toBe(6000);
  });

  it("nothing is written before the interval since the pod's own Event has passed", () => {
    const s = new EventSeries(settings);
    storm(s, 5);
    expect(s.due(9_999)).toEqual([]);
    expect(s.nextDue()).toBe(10_000);
    expect(s.due(10_000)).toMatchObject([{ count: 5, create: true }]);
    // Told: nothing more until another removal, and then not before the next interval.
    expect(s.due(15_000)).toEqual([]);
    s.observe(removal('train-5', 15_000));
    expect(s.due(19_999)).toEqual([]);
    expect(s.due(20_000)).toMatchObject([{ count: 6, create: false }]);
  });

  it('the window ends: its last removals are written then, and the next removal starts a window with its own Event again', () => {
    const s = new EventSeries(settings);
    storm(s, 3);
    expect(s.due(60_000)).toMatchObject([{ count: 3, create: true }]);
    expect(s.size).toBe(0);
    expect(s.observe(removal('train-9', 61_000))).toBe('own');
  });

  it('a removal after the window that nobody flushed opens a new window and keeps the old one to write', () => {
    const s = new EventSeries(settings);
    storm(s, 3);
    expect(s.observe(removal('train-9', 70_000))).toBe('own');
    expect(s.nextDue()).toBe(Number.NEGATIVE_INFINITY);
    expect(s.due(70_000)).toMatchObject([{ count: 3, first: 'train-0' }]);
    expect(s.size).toBe(1);
  });

  it('the window is counted from the first removal, not moved by later ones: a steady trickle still gets an Event per window', () => {
    const s = new EventSeries(settings);
    const own = Array.from({ length: 10 }, (_, i) => s.observe(removal(`train-${i}`, i * 30_000))).filter((a) => a === 'own');
    expect(own).toHaveLength(5);
  });

  it('drain writes what is pending whatever the interval, and forgets every window', () => {
    const s = new EventSeries(settings);
    storm(s, 4);
    s.observe(removal('web-0', 0, { owner: undefined }));
    s.observe(removal('web-1', 1, { owner: undefined }));
    expect(s.drain().map((w) => [w.owner?.kind ?? 'Namespace', w.count])).toEqual([
      ['Job', 4],
      ['Namespace', 2],
    ]);
    expect(s.size).toBe(0);
    expect(s.drain()).toEqual([]);
  });

  it('a series already written and then drained is an update, not a second Event', () => {
    const s = new EventSeries(settings);
    storm(s, 3);
    s.due(10_000);
    s.observe(removal('train-3', 11_000));
    expect(s.drain()).toMatchObject([{ create: false, count: 4 }]);
  });

  for (const row of [
    { sentence: 'another Job (by uid) is another series', other: { owner: { ...job, uid: 'job-2' } } },
    { sentence: 'a Job recreated under the same name (a new uid) is another series', other: { owner: { ...job, uid: 'job-uid-again' } } },
    { sentence: 'bare pods are grouped by their namespace', other: { owner: undefined } },
    { sentence: 'the same Job in another namespace is another series', other: { namespace: 'ml2' } },
    { sentence: "an eviction is another series than a delete (reason and action are the Event's own)", other: { reason: 'Evicted', action: 'Evict' } },
    { sentence: 'another strategy is another series (its note says why)', other: { strategy: 'RemoveFailedPods' } },
    { sentence: "another kind's removals (a ttl rule's ConfigMaps) are another series than the pods'", other: { kind: 'ConfigMap' } },
    {
      sentence: 'two kinds of one rule in one namespace are two series',
      other: { kind: 'ConfigMap', owner: undefined },
      first: { kind: 'Secret', owner: undefined },
    },
  ] as { sentence: string; other: Partial<Removal>; first?: Partial<Removal> }[])
    it(row.sentence, () => {
      const s = new EventSeries(settings);
      expect(s.observe(removal('a', 0, row.first))).toBe('own');
      expect(s.observe(removal('b', 1, row.other))).toBe('own');
      expect(groupKey(removal('a', 0, row.first))).not.toBe(groupKey(removal('b', 1, row.other)));
    });

  it('the series id is stable across its writes and differs per window', () => {
    const s = new EventSeries(settings);
    storm(s, 3);
    const [first] = s.due(10_000);
    s.observe(removal('train-3', 11_000));
    const [second] = s.due(60_000);
    storm(s, 2, 100_000);
    const [next] = s.drain();
    expect(second!.id).toBe(first!.id);
    expect(next!.id).not.toBe(first!.id);
  });

  it("dueOf, the time of the group a removal counts in, with the time before it is never later than nextDue's scan after it: a timer armed so is never late", () => {
    const s = new EventSeries(settings);
    const owners = ['a', 'b', 'c'].map((uid) => ({ ...job, uid }));
    let next: number | undefined;
    // A storm over three Jobs, removals interleaved, with flushes between (which re-scan, as the timer does).
    for (let i = 0; i < 60; i++) {
      const r = removal(`p-${i}`, i * 1_500, { owner: owners[i % 3]! });
      s.observe(r);
      next = Math.min(next ?? Number.POSITIVE_INFINITY, s.dueOf(r)!);
      // Earlier only when a window ended and its group's next one began (the timer then fires early, finds nothing and scans).
      expect(next, `after removal ${i}`).toBeLessThanOrEqual(s.nextDue()!);
      if (i % 3 === 0 && i < 39) expect(next, `after removal ${i}, every window open`).toBe(s.nextDue());
      if (i % 7 === 6) {
        s.due(r.at);
        next = s.nextDue();
      }
    }
    // A window that ended unflushed is set aside by the next observe: due at once.
    const late = removal('late', 500_000, { owner: owners[0]! });
    s.observe(late);
    expect(s.dueOf(late)).toBe(Number.NEGATIVE_INFINITY);
    expect(s.nextDue()).toBe(Number.NEGATIVE_INFINITY);
  });
});
