// The election loop's timing and its end, on fake timers: when a follower takes a released
// Lease, a period no Node timer holds, and a request no retry mends.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KubeRequestError, TransientKubeError } from '../../kube/errors.js';
import type { LeaseClient, LeaseWrite, ObservedLease } from '../../kube/lease.js';
import { UnsafeRequestError } from '../../kube/request-lifecycle.js';
import { createLogger } from '../../log.js';
import { MetricsRecorder } from '../../metrics/recorder.js';
import { releasedLease } from './core/election.js';
import { startElector, type ElectorOptions } from './leader.js';

const log = createLogger({ level: 'silent' });

/** A Lease in memory that counts reads; `current` may be set by the test as another replica's writes. */
function memoryLease(initial?: ObservedLease['spec']) {
  let rv = 1;
  const state = { current: initial && { spec: initial, resourceVersion: '1' }, reads: 0 };
  const write = async (spec: ObservedLease['spec']): Promise<LeaseWrite> => (
    (state.current = { spec, resourceVersion: String(++rv) }),
    { ok: true, lease: state.current }
  );
  const client: LeaseClient = {
    read: async () => (state.reads++, state.current),
    create: write,
    update: write,
  };
  return { state, client };
}

/** The descheduler's defaults (137 s, 107 s, 26 s) unless given. */
const elector = (lease: LeaseClient, o: Partial<ElectorOptions> = {}) =>
  startElector({
    lease,
    me: 'follower',
    leaseDurationSeconds: 137,
    renewDeadlineSeconds: 107,
    retryPeriodSeconds: 26,
    log,
    metrics: MetricsRecorder.off(),
    onStarted: vi.fn(),
    onLost: vi.fn(),
    mono: () => Date.now(),
    ...o,
  });

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

describe('the election loop', () => {
  it('takes a Lease released at shutdown a second after it sees the release, not a retry period later (client-go: at its next round)', async () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    const held = { holderIdentity: 'leader', leaseDurationSeconds: 137, acquireTime: iso(Date.now()), renewTime: iso(Date.now()), leaseTransitions: 0 };
    const { state, client } = memoryLease(held);
    const onStarted = vi.fn();
    const e = elector(client, { onStarted });
    await vi.advanceTimersByTimeAsync(10_000);
    // The leader stops and gives the Lease up (releasedLease: no holder, 1 s).
    state.current = { spec: releasedLease(held, Date.now()), resourceVersion: '9' };
    // The follower's next round (26 s after its first) sees the release ...
    await vi.advanceTimersByTimeAsync(16_000);
    expect(onStarted).not.toHaveBeenCalled();
    // ... and takes it a second later, not at 52 s.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(onStarted).toHaveBeenCalledOnce();
    expect(state.current?.spec.holderIdentity).toBe('follower');
    await e.stop();
  });

  it('a retry period past 2^31-1 ms (720h) is waited out, not one round a millisecond', async () => {
    const { state, client } = memoryLease();
    const e = elector(client, { leaseDurationSeconds: 3 * 720 * 3600, renewDeadlineSeconds: 2 * 720 * 3600, retryPeriodSeconds: 720 * 3600 });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(state.reads).toBe(1);
    await vi.advanceTimersByTimeAsync(720 * 3_600_000);
    expect(state.reads).toBe(2);
    await e.stop();
  });

  it.each([
    {
      sentence: 'a read the path guard refuses (a Lease named "../x")',
      fail: () => new UnsafeRequestError('refused to send GET .../leases/..: a . or .. segment'),
    },
    {
      sentence: 'a read answered 403',
      fail: () => new KubeRequestError('read lease: 403 Forbidden', { kind: 'forbidden', status: 403, message: 'no', causes: [] }),
    },
  ])('$sentence ends the election and says why, once', async ({ fail }) => {
    const { state, client } = memoryLease();
    const onRefused = vi.fn();
    const e = elector(
      { ...client, read: async () => (state.reads++, Promise.reject(fail())) },
      { onRefused, retryPeriodSeconds: 1, renewDeadlineSeconds: 2, leaseDurationSeconds: 3 },
    );
    await vi.advanceTimersByTimeAsync(10_000);
    expect(onRefused).toHaveBeenCalledOnce();
    expect(onRefused.mock.calls[0]![0]).toMatch(/reading the Lease/);
    expect(state.reads).toBe(1);
    await e.stop();
  });

  it('a write refused (403 on create) ends it too; a timeout is tried again every period', async () => {
    const { state, client } = memoryLease();
    const onRefused = vi.fn();
    const refused = elector({ ...client, create: async () => ({ ok: false, conflict: false, refused: true, error: '403 Forbidden' }) }, { onRefused });
    await vi.advanceTimersByTimeAsync(100_000);
    expect(onRefused).toHaveBeenCalledOnce();
    expect(state.reads).toBe(1);
    await refused.stop();

    const slow = memoryLease();
    const transient = vi.fn();
    const retried = elector(
      {
        ...slow.client,
        read: async () => (slow.state.reads++, Promise.reject(new TransientKubeError('timed out', { kind: 'transient', message: 'timed out', causes: [] }))),
      },
      { onRefused: transient },
    );
    await vi.advanceTimersByTimeAsync(26_000 * 3);
    expect(slow.state.reads).toBe(4);
    expect(transient).not.toHaveBeenCalled();
    await retried.stop();
  });
});
