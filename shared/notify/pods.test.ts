import { beforeEach, describe, expect, it } from 'vitest';
import type { Decision } from '../selection/decision.js';
import { Notifier } from './notifier.js';
import { passEvents, podDecided } from './pods.js';
import type { OutEvent, PodsDecided } from './types.js';

let sent: OutEvent[] = [];
let n: Notifier;
const d = (name: string): Decision => ({ namespace: 'ml', name, uid: `u-${name}`, profile: 'p', strategy: 's', action: 'delete', reason: 'r' });
const done = { action: 'delete' as const, outcome: 'deleted' as const, dryRun: false };

beforeEach(() => {
  sent = [];
  n = Notifier.fromEnv({ EVENTS_SINK: 'http://127.0.0.1:9/', EVENTS_BATCH_SIZE: '3' }, Date.now, async (e) => void sent.push(e));
});

describe("a pass's decisions", () => {
  it('the first N one event each, the rest in batches in order, then pass.completed saying how many of each', async () => {
    const out = passEvents(n, 'sweep', 'p1', 2)!;
    for (let i = 0; i < 9; i++) out.decided(d(`pod-${i}`), done);
    out.completed({ dryRun: false, outcome: 'complete', failures: { transient: 0, refused: 0 }, counts: {} });
    await n.flush(1_000);
    expect(sent.map((e) => e.type)).toEqual([
      'dev.kube-tidy.pod.deleted.v1',
      'dev.kube-tidy.pod.deleted.v1',
      'dev.kube-tidy.pods.decided.v1',
      'dev.kube-tidy.pods.decided.v1',
      'dev.kube-tidy.pods.decided.v1',
      'dev.kube-tidy.pass.completed.v1',
    ]);
    const batches = sent.filter((e) => e.type.endsWith('pods.decided.v1')).map((e) => e.data as PodsDecided);
    expect(batches.map((b) => [b.batch, b.decisions.map((x) => x.name)])).toEqual([
      [1, ['pod-2', 'pod-3', 'pod-4']],
      [2, ['pod-5', 'pod-6', 'pod-7']],
      [3, ['pod-8']],
    ]);
    expect((sent.at(-1)!.data as { decisions: unknown }).decisions).toEqual({ single: 2, batched: 7, batches: 3 });
  });

  it('the event path: one event per decision, with its origin and pass', async () => {
    podDecided(n, d('a'), { ...done, outcome: 'deferred', message: 'budget' }, 'event');
    podDecided(n, d('b'), done, 'shard', 'p9');
    await n.flush(1_000);
    expect(sent.map((e) => [e.type, e.source, e.subject, (e.data as { pass?: string }).pass])).toEqual([
      ['dev.kube-tidy.pod.deferred.v1', 'kube-tidy/podTerminated', 'namespaces/ml/pods/a', undefined],
      ['dev.kube-tidy.pod.deleted.v1', 'kube-tidy/sweep', 'namespaces/ml/pods/b', 'p9'],
    ]);
  });

  it('a removal at eligibility says so: the time it was scheduled for and what acted, origin still event', async () => {
    podDecided(n, d('a'), done, 'event', undefined, { at: '2026-11-28T12:00:20.000Z', by: 'timer' });
    podDecided(n, d('b'), done, 'event');
    await n.flush(1_000);
    expect(sent.map((e) => [e.extensions?.origin, (e.data as { due?: unknown }).due])).toEqual([
      ['event', { at: '2026-11-28T12:00:20.000Z', by: 'timer' }],
      ['event', undefined],
    ]);
  });

  it('with no sink, nothing is built, sent or counted', async () => {
    n = Notifier.off();
    expect(n.on).toBe(false);
    expect(passEvents(n, 'sweep', 'p', 1)).toBeUndefined();
    podDecided(n, d('a'), done, 'event');
    await n.flush(1_000);
    expect(sent).toEqual([]);
    expect(n.stats()).toBeUndefined();
  });
});
