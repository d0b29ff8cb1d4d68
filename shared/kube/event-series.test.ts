import { describe, expect, it } from 'vitest';
import type { SeriesWrite } from './core/event-series.js';
import { seriesBody } from './event-series.js';
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
