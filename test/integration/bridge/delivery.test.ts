// Delivery against a real sink and a real cluster: Knative's retry rules end to end.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestSink, type TestSink } from '../../fixtures/http-sink.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { bridgeFor, pod } from './helpers.js';

const ns = testNamespace('bridge-delivery');
const core = sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
const fast = { retries: 5, baseDelayMs: 20, maxDelayMs: 200, timeoutMs: 5_000 };
let sink: TestSink;

beforeEach(async () => {
  sink = await startTestSink();
});
afterEach(() => sink.close());

const addOf = (name: string) => sink.received.filter((r) => r.headers['ce-name'] === name && r.headers['ce-type'] === 'dev.knative.apiserver.resource.add');

describe('delivery', () => {
  it('a sink answering 503 twice then 200 gets the event on the third attempt, same id, once accepted', async () => {
    // Per event id: two 503s, then 200 (updates from the scheduler and kwok get the same treatment).
    const seen = new Map<string, number>();
    sink.answer(({ headers }) => {
      const id = String(headers['ce-id']);
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      return n <= 2 ? 503 : 200;
    });
    const bridge = await bridgeFor(sink, ns.name, 'retry', { retry: fast });
    try {
      await core.createNamespacedPod({ namespace: ns.name, body: pod('flaky', 'retry') });
      await waitFor('the add event to be accepted', async () => addOf('flaky').some((r) => r.status === 200));
    } finally {
      await bridge.stop();
    }
    const attempts = addOf('flaky');
    expect(attempts.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(new Set(attempts.map((r) => r.headers['ce-id'])).size).toBe(1);
    const s = bridge.stats();
    expect(s.received.add).toBe(1);
    expect(s.delivered).toBe(s.received.add + s.received.update + s.received.delete);
    expect(s.failed + s.rejected + s.dropped + s.abandoned).toBe(0);
    expect(s.retries).toBe(2 * s.delivered);
  });

  it('a sink answering 400 is not retried: each event is sent once and counted as rejected', async () => {
    sink.answer([400]);
    const bridge = await bridgeFor(sink, ns.name, 'reject', { retry: fast });
    await core.createNamespacedPod({ namespace: ns.name, body: pod('refused', 'reject') });
    await waitFor('the add event to be refused', async () => addOf('refused').length > 0);
    // stop() drains: any retry would have happened before it returns.
    const s = await bridge.stop();
    const perId = new Map<string, number>();
    for (const r of sink.received) perId.set(String(r.headers['ce-id']), (perId.get(String(r.headers['ce-id'])) ?? 0) + 1);
    expect([...perId.values()].every((n) => n === 1)).toBe(true);
    expect(s.rejected).toBe(sink.received.length);
    expect(s.retries).toBe(0);
    expect(s.delivered).toBe(0);
  });

  it('a sink that never accepts is given up on after the retry limit, and the bridge carries on', async () => {
    sink.answer([500]);
    const bridge = await bridgeFor(sink, ns.name, 'limit', { retry: { ...fast, retries: 2 }, concurrency: 1 });
    await core.createNamespacedPod({ namespace: ns.name, body: pod('doomed', 'limit') });
    await waitFor('three attempts at the add event', async () => addOf('doomed').length >= 3);
    const s = await bridge.stop();
    expect(addOf('doomed')).toHaveLength(3);
    expect(s.failed).toBeGreaterThanOrEqual(1);
    expect(s.delivered).toBe(0);
  });

  it('with a slow sink and a full queue, drops the oldest waiting events; stop gives up at its deadline; every event is accounted for', async () => {
    sink.delay(3_000);
    const bridge = await bridgeFor(sink, ns.name, 'slow', { retry: fast, concurrency: 1, queueSize: 1 });
    for (const name of ['slow-a', 'slow-b', 'slow-c']) await core.createNamespacedPod({ namespace: ns.name, body: pod(name, 'slow') });
    await waitFor('an event to be dropped', async () => bridge.stats().dropped > 0);
    const started = Date.now();
    const s = await bridge.stop({ deadlineMs: 200 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(s.abandoned).toBeGreaterThanOrEqual(1);
    expect(s.delivered).toBe(0);
    const received = s.received.add + s.received.update + s.received.delete;
    expect(s.delivered + s.rejected + s.failed + s.dropped + s.abandoned).toBe(received);
    expect(s.waiting + s.running).toBe(0);
  });
});
