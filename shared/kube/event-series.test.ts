import { ApiException } from '@kubernetes/client-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventSeries, type SeriesWrite } from './core/event-series.js';
import { PodEventSeries, seriesBody, type SeriesEventWriter } from './event-series.js';
import { dns1123SubdomainProblem } from '../model/names.js';

const job = { apiVersion: 'batch/v1', kind: 'Job', name: 'train', uid: 'job-uid', controller: true };
const write = (o: Partial<SeriesWrite> = {}): SeriesWrite => ({
  id: 'ml\nJob/job-uid\nDeleted\nDelete\nPodLifeTime\n0',
  create: true,
  namespace: 'ml',
  owner: job,
  reason: 'Deleted',
  action: 'Delete',
  strategy: 'PodLifeTime',
  count: 40,
  first: 'train-0',
  named: ['train-1', 'train-2'],
  firstAt: Date.parse('2026-11-29T09:00:00Z'),
  lastAt: Date.parse('2026-11-29T09:00:30Z'),
  ...o,
});

describe('seriesBody: the events.k8s.io/v1 Event of a series', () => {
  it('is about the owner, counts in series (count, lastObservedTime), and names the first pods', () => {
    const body = seriesBody(write(), 'kube-tidy-abc');
    expect(body).toMatchObject({
      reason: 'PodsDeleted',
      action: 'Delete',
      type: 'Normal',
      regarding: { apiVersion: 'batch/v1', kind: 'Job', namespace: 'ml', name: 'train', uid: 'job-uid' },
      series: { count: 40 },
      reportingInstance: 'kube-tidy-abc',
    });
    expect(body.note).toBe(
      "kube-tidy deleted pods of Job train as PodLifeTime selected them: train-0 (with an Event of its own), train-1, train-2 and more. This Event's count is how many in its window; every pod is in kube-tidy's CloudEvents and metrics.",
    );
    // Microseconds, as the API server requires of a MicroTime; eventTime is when the window opened.
    expect(JSON.parse(JSON.stringify(body.series))).toEqual({ count: 40, lastObservedTime: '2026-11-29T09:00:30.000000Z' });
    expect(JSON.parse(JSON.stringify(body.eventTime))).toBe('2026-11-29T09:00:00.000000Z');
  });

  it("another kind's removals (a ttl rule's ConfigMaps): about their namespace, ObjectsDeleted, the kind named", () => {
    const body = seriesBody(write({ owner: undefined, kind: 'ConfigMap', strategy: 'rule previews', count: 40, named: ['b', 'c'], first: 'a' }), 'i');
    expect(body.regarding).toEqual({ apiVersion: 'v1', kind: 'Namespace', namespace: 'ml', name: 'ml' });
    expect(body.reason).toBe('ObjectsDeleted');
    expect(body.note).toMatch(
      /^kube-tidy deleted objects of kind ConfigMap in this namespace as rule previews selected them: a \(with an Event of its own\), b, c and more\. .*every object is in/,
    );
  });

  it('bare pods: about their namespace, as the pass summary is', () => {
    const body = seriesBody(write({ owner: undefined, count: 3, named: ['b', 'c'], first: 'a' }), 'i');
    expect(body.regarding).toEqual({ apiVersion: 'v1', kind: 'Namespace', namespace: 'ml', name: 'ml' });
    expect(body.note).toMatch(
      /^kube-tidy deleted pods without an owner in this namespace as PodLifeTime selected them: a \(with an Event of its own\), b, c\. /,
    );
  });

  it('one name per series and instance: two instances counting the same Job write two Events, the same series twice writes one', () => {
    const name = (w: SeriesWrite, instance: string) => seriesBody(w, instance).metadata?.name;
    expect(name(write(), 'a')).toBe(name(write({ count: 80 }), 'a'));
    expect(name(write(), 'a')).not.toBe(name(write(), 'b'));
    expect(name(write(), 'a')).not.toBe(name(write({ id: 'another window' }), 'a'));
  });

  it.each([
    { case: 'upper case and an underscore', name: 'Train_Run' },
    { case: 'a slash and dots', name: '../x/y' },
    { case: 'a part longer than 63 characters', name: `${'a'.repeat(240)}.b` },
  ])("an owner's name the API server never validated ($case): the Event is still validly named, so its create and the patch's URL hold", ({ name }) => {
    // ownerReferences[].name is only checked to be non-empty: whoever creates the pod writes it.
    const body = seriesBody(write({ owner: { ...job, name } }), 'i');
    expect(dns1123SubdomainProblem(body.metadata?.name)).toBeUndefined();
    expect(body.regarding).toMatchObject({ kind: 'Job', name });
    // Still one name per series and instance.
    expect(seriesBody(write({ owner: { ...job, name }, count: 80 }), 'i').metadata?.name).toBe(body.metadata?.name);
  });

  it('a note of long names stays within the 1 KiB the API server takes', () => {
    const long = (i: number) => `${'x'.repeat(240)}-${i}`;
    const body = seriesBody(write({ first: long(0), named: [1, 2, 3, 4, 5].map(long) }), 'i');
    expect(Buffer.byteLength(body.note ?? '')).toBeLessThanOrEqual(1024);
  });
});

// The series' writes over a client double (pure: no API server; the wire is the integration
// tests'): the clock is the test's, and nothing here waits on wall-clock time.
const status = (code: number, reason: string) =>
  new ApiException(code, reason, JSON.stringify({ kind: 'Status', status: 'Failure', code, reason, message: reason }), {});
const pod = (name: string) => ({ namespace: 'ml', name, owner: job, reason: 'Deleted', action: 'Delete', strategy: 'PodLifeTime' });

/** Every series a test made: drained after it, so no timer of one (on its test's clock) fires in the next. */
const made: PodEventSeries[] = [];

function seriesOver(events: Partial<SeriesEventWriter>, o: { windowMs?: number; intervalMs?: number; clock?: () => number } = {}) {
  let now = 0;
  const warn = vi.fn();
  const client = {
    createNamespacedEvent: vi.fn(async () => ({})),
    patchNamespacedEvent: vi.fn(async () => ({})),
    ...events,
  } as unknown as SeriesEventWriter & { createNamespacedEvent: ReturnType<typeof vi.fn>; patchNamespacedEvent: ReturnType<typeof vi.fn> };
  const series = new PodEventSeries({
    events: client,
    now: o.clock ?? (() => now),
    instance: 'i',
    log: { warn } as never,
    windowMs: o.windowMs ?? 3_600_000,
    intervalMs: o.intervalMs ?? 600_000,
    named: 5,
  });
  made.push(series);
  return { series, client, warn, at: (ms: number) => (now = ms) };
}

describe('PodEventSeries: the process timer and the writes', () => {
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(made.splice(0).map((s) => s.drain(0)));
  });

  it("the timer it arms never holds the process up (unref'd), and the drain clears it", async () => {
    const { series } = seriesOver({});
    const refed = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = refed();
    expect(series.ownEvent(pod('a'))).toBe(true);
    expect(series.ownEvent(pod('b'))).toBe(false);
    expect(refed()).toBe(before);
    vi.useFakeTimers();
    const { series: faked } = seriesOver({});
    faked.ownEvent(pod('a'));
    faked.ownEvent(pod('b'));
    expect(vi.getTimerCount()).toBe(1);
    await faked.drain(1_000);
    expect(vi.getTimerCount()).toBe(0);
    await series.drain(1_000);
  });

  it('the drain gives up at its deadline when a write hangs, says so, and answers not drained', async () => {
    const { series, warn } = seriesOver({ createNamespacedEvent: vi.fn(() => new Promise<never>(() => undefined)) });
    series.ownEvent(pod('a'));
    series.ownEvent(pod('b'));
    expect(await series.drain(0)).toMatchObject({ drained: false });
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ deadlineMs: 0 }), expect.stringContaining('stop deadline cut off'));
  });

  it('after the drain every removal gets its own Event again: nothing would write a series', async () => {
    const { series } = seriesOver({});
    series.ownEvent(pod('a'));
    await series.drain(1_000);
    expect([series.ownEvent(pod('b')), series.ownEvent(pod('c'))]).toEqual([true, true]);
  });

  it('an update of a series whose Event is gone (expired, its create failed) creates it whole; an AlreadyExists create is no failure', async () => {
    const { series, client, at } = seriesOver({}, { intervalMs: 10 });
    series.ownEvent(pod('a'));
    series.ownEvent(pod('b'));
    at(10);
    await series.flushDue();
    expect(client.createNamespacedEvent).toHaveBeenCalledTimes(1);
    client.patchNamespacedEvent.mockRejectedValueOnce(status(404, 'NotFound'));
    series.ownEvent(pod('c'));
    at(20);
    await series.flushDue();
    expect(client.patchNamespacedEvent).toHaveBeenCalledTimes(1);
    expect(client.createNamespacedEvent).toHaveBeenCalledTimes(2);
    expect(client.createNamespacedEvent.mock.calls[1]![0]).toMatchObject({ namespace: 'ml', body: { series: { count: 3 } } });
    client.patchNamespacedEvent.mockRejectedValueOnce(status(404, 'NotFound'));
    client.createNamespacedEvent.mockRejectedValueOnce(status(409, 'AlreadyExists'));
    series.ownEvent(pod('d'));
    at(30);
    await series.flushDue();
    expect(series.stats).toMatchObject({ own: 1, folded: 3, created: 2, updated: 0, failed: 0 });
  });

  it('a write the API server refuses is counted and logged, not retried', async () => {
    const { series, client, warn } = seriesOver({});
    client.createNamespacedEvent.mockRejectedValueOnce(status(422, 'Invalid'));
    series.ownEvent(pod('a'));
    series.ownEvent(pod('b'));
    expect(await series.drain(1_000)).toMatchObject({ drained: true, stats: { failed: 1, created: 0 } });
    expect(client.createNamespacedEvent).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ count: 2 }), expect.stringContaining('a write failed'));
  });

  it("a removal arms the timer from its own group's time, not a scan of every open window; the timer still writes each group when it is due", async () => {
    vi.useFakeTimers({ now: 0 });
    const scans = vi.spyOn(EventSeries.prototype, 'nextDue');
    const { series, client } = seriesOver({}, { windowMs: 60_000, intervalMs: 10_000, clock: () => Date.now() });
    const ofJob = (uid: string, name: string) => ({ ...pod(name), owner: { ...job, uid, name: uid } });
    // 100 Jobs' first pods (their windows end at 60 s), then two more pods of Job j7 at 5 s: its series is due at 10 s.
    for (let i = 0; i < 100; i++) series.ownEvent(ofJob(`j${i}`, `p${i}`));
    vi.setSystemTime(5_000);
    series.ownEvent(ofJob('j7', 'q1'));
    series.ownEvent(ofJob('j7', 'q2'));
    expect(scans).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(client.createNamespacedEvent).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(client.createNamespacedEvent).toHaveBeenCalledTimes(1);
    expect(client.createNamespacedEvent.mock.calls[0]![0]).toMatchObject({ body: { regarding: { name: 'j7' }, series: { count: 3 } } });
    // Then the windows end (at 60 s) and are let go; nothing more is armed.
    // The write done, the timer is armed again (by a scan) for the windows' end.
    await series.flushDue();
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(50_000);
    await series.flushDue();
    expect(vi.getTimerCount()).toBe(0);
    expect(series.stats).toMatchObject({ own: 100, folded: 2, created: 1, failed: 0 });
    scans.mockRestore();
  });
});
