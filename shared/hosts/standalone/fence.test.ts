import { describe, expect, it, vi } from 'vitest';
import { TransientKubeError } from '../../kube/errors.js';
import type { LeaseClient, ObservedLease } from '../../kube/lease.js';
import { ClusterWriter, type WriterClients } from '../../kube/writer.js';
import { ReportWriter } from '../../kube/reports.js';
import { createLogger } from '../../log.js';
import type { RemovalTarget } from '../../kube/evict-only.js';
import { fenceOpen, fenceUntil } from './core/fence.js';
import { FencedError, fencedClients } from './fence.js';
import { startElector } from './leader.js';
import { MetricsRecorder } from '../../metrics/recorder.js';
import { testTicket } from '../../../test/fixtures/ticket.js';

const log = createLogger({ level: 'silent' });
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('the fence (pure): open until the renew deadline after the last renewal was sent', () => {
  it.each([
    { sentence: 'just renewed', leading: true, at: 0, open: true },
    { sentence: '1 ms before the deadline', leading: true, at: 9_999, open: true },
    { sentence: 'at the deadline', leading: true, at: 10_000, open: false },
    { sentence: 'a minute later (a paused process resumed)', leading: true, at: 60_000, open: false },
    { sentence: 'not leading', leading: false, at: 0, open: false },
  ])('$sentence: $open', ({ leading, at, open }) => {
    expect(fenceOpen({ leading, renewSentAt: 1_000 }, 1_000 + at, 10)).toBe(open);
  });
  it('never open when not leading', () => expect(fenceUntil({ leading: false, renewSentAt: 5 }, 10)).toBe(-Infinity));
});

/** A Lease that only this replica writes, answering at once. */
function ownLease(): LeaseClient & { writes: number } {
  let current: ObservedLease | undefined;
  let rv = 0;
  const write = async (spec: ObservedLease['spec']) => ((current = { spec, resourceVersion: String(++rv) }), { ok: true as const, lease: current });
  return {
    writes: 0,
    read: async () => current,
    create: write,
    update: write,
  };
}

describe("the elector's fence, by the monotonic clock alone", () => {
  it('is shut the moment the renew deadline passes, though no round ran (a SIGSTOPped process resumed)', async () => {
    let mono = 1_000;
    const onLost = vi.fn();
    const e = startElector({
      lease: ownLease(),
      me: 'p',
      leaseDurationSeconds: 15,
      renewDeadlineSeconds: 10,
      retryPeriodSeconds: 3600,
      metrics: MetricsRecorder.off(),
      log,
      onStarted: () => {},
      onLost,
      mono: () => mono,
    });
    await vi.waitFor(() => expect(e.isLeader()).toBe(true));
    expect(e.holds()).toBe(true);
    mono += 9_999;
    expect(e.holds()).toBe(true);
    // The process was paused: its timers have not fired, its monotonic clock ran on.
    mono += 1;
    expect(e.holds()).toBe(false);
    await tick();
    expect(e.holds()).toBe(false);
    await e.stop();
  });

  it('a round that finds the Lease taken says it is lost; one that renews it opens the fence again', async () => {
    let mono = 0;
    const lease = ownLease();
    let taken = false;
    const onLost = vi.fn();
    const read = async () => {
      const l = await lease.read();
      return taken && l ? { ...l, spec: { ...l.spec, holderIdentity: 'q' } } : l;
    };
    const e = startElector({
      lease: { ...lease, read },
      me: 'p',
      leaseDurationSeconds: 1,
      renewDeadlineSeconds: 0.5,
      retryPeriodSeconds: 0.05,
      metrics: MetricsRecorder.off(),
      log,
      onStarted: () => {},
      onLost,
      mono: () => mono,
    });
    await vi.waitFor(() => expect(e.holds()).toBe(true));
    mono += 600;
    expect(e.holds()).toBe(false);
    // Nobody took it: the next round renews, and the leader goes on.
    await vi.waitFor(() => expect(e.holds()).toBe(true));
    expect(onLost).not.toHaveBeenCalled();
    mono += 600;
    taken = true;
    expect(e.holds()).toBe(false);
    await vi.waitFor(() => expect(onLost).toHaveBeenCalledTimes(1));
    expect(e.isLeader()).toBe(false);
    expect(e.holds()).toBe(false);
    await e.stop();
  });

  it('times the claim from when the renewal was sent, not when its answer came', async () => {
    let mono = 0;
    const lease = ownLease();
    const slow: LeaseClient = { ...lease, create: async (spec) => ((mono += 4_000), lease.create(spec)) };
    const e = startElector({
      lease: slow,
      me: 'p',
      leaseDurationSeconds: 15,
      renewDeadlineSeconds: 10,
      retryPeriodSeconds: 3600,
      metrics: MetricsRecorder.off(),
      log,
      onStarted: () => {},
      onLost: () => {},
      mono: () => mono,
    });
    await vi.waitFor(() => expect(e.isLeader()).toBe(true));
    mono = 9_999;
    expect(e.holds()).toBe(true);
    mono = 10_000;
    expect(e.holds()).toBe(false);
    await e.stop();
  });

  it('is shut before the first Lease is won', () => {
    const e = startElector({
      lease: {
        read: () => new Promise(() => {}),
        create: async () => ({ ok: false, conflict: true, error: '' }),
        update: async () => ({ ok: false, conflict: true, error: '' }),
      },
      me: 'p',
      leaseDurationSeconds: 15,
      renewDeadlineSeconds: 10,
      retryPeriodSeconds: 3600,
      metrics: MetricsRecorder.off(),
      log,
      onStarted: () => {},
      onLost: () => {},
    });
    expect(e.holds()).toBe(false);
  });
});

describe('fenced clients: the one writer sends nothing once the fence is shut', () => {
  const pod: RemovalTarget = { namespace: 'ml', name: 'a', uid: 'u1', resourceVersion: '7', phase: 'Failed', evictOnly: false } as RemovalTarget;
  const clients = () => {
    const core = {
      deleteNamespacedPod: vi.fn(async () => ({})),
      createNamespacedPodEviction: vi.fn(async () => ({})),
      readNamespacedPod: vi.fn(async () => ({ metadata: { name: 'a' } })),
      replaceNamespacedConfigMap: vi.fn(async () => ({})),
      createNamespacedConfigMap: vi.fn(async () => ({})),
    };
    const events = { createNamespacedEvent: vi.fn(async () => ({ metadata: { name: 'e' } })) };
    const custom = { patchNamespacedCustomObject: vi.fn(async () => ({})) };
    // The objects' direct DELETE (a finished Job, a claim).
    const objectWrites = { deleteNamespacedObject: vi.fn(async () => 200) };
    // The direct pod DELETE is the fake core's too: a write through it is fenced like any other.
    return { core, events, custom, podWrites: core, objectWrites } as unknown as WriterClients & {
      core: typeof core;
      events: typeof events;
      custom: typeof custom;
      objectWrites: typeof objectWrites;
    };
  };
  const options = { dryRun: false, recordEvents: true, protectedNamespaces: [] };

  it('open: the write and its Event go out', async () => {
    const c = clients();
    const w = new ClusterWriter(
      fencedClients(c, () => true),
      options,
    );
    expect((await w.removePod(pod, testTicket(), 'gone')).outcome).toBe('deleted');
    expect(c.core.deleteNamespacedPod).toHaveBeenCalledTimes(1);
    expect(c.events.createNamespacedEvent).toHaveBeenCalledTimes(1);
    expect(
      await w.deleteAsRead({ group: 'batch', version: 'v1', plural: 'jobs' }, { namespace: 'ml', name: 'done', uid: 'j1', resourceVersion: '9' }, testTicket()),
    ).toBe('deleted');
    expect(c.objectWrites.deleteNamespacedObject).toHaveBeenCalledTimes(1);
  });

  it('shut: removal, object, ConfigMap and custom-object writes are refused before sending, as a transient error (reason Fenced); reads still pass', async () => {
    const c = clients();
    const w = new ClusterWriter(
      fencedClients(c, () => false),
      options,
    );
    const removed = w.removePod(pod, testTicket(), 'gone');
    await expect(removed).rejects.toBeInstanceOf(FencedError);
    await expect(w.removePod(pod, testTicket(), 'gone')).rejects.toBeInstanceOf(TransientKubeError);
    await expect(w.removePod({ ...pod, phase: 'Running' } as RemovalTarget, testTicket(), 'gone')).rejects.toThrow(
      /createNamespacedPodEviction: not sent: this replica does not hold the Lease/,
    );
    await expect(w.writeConfigMap('kube-tidy', 'ledger', { metadata: { resourceVersion: '1' } }, {})).rejects.toBeInstanceOf(FencedError);
    await expect(w.patchObject({ group: 'g', version: 'v1', plural: 'things' }, { namespace: 'ml', name: 'x', uid: 'u' }, {})).rejects.toBeInstanceOf(
      FencedError,
    );
    expect(await w.recordEvent(pod, { reason: 'Deleted', action: 'Delete', type: 'Normal', note: '' })).toMatchObject({ recorded: false });
    // kube-tidy's OpenReports go through the writer's client too (written apart from DRY_RUN, never unfenced).
    await expect(new ReportWriter(w.reportsClient, []).apply({ metadata: { namespace: 'ml', name: 'kube-tidy-default' } })).rejects.toBeInstanceOf(FencedError);
    const job = { namespace: 'ml', name: 'done', uid: 'j1', resourceVersion: '9' };
    await expect(
      w.deleteAsRead({ group: 'batch', version: 'v1', plural: 'jobs' }, job, testTicket(), { propagationPolicy: 'Background' }),
    ).rejects.toBeInstanceOf(FencedError);
    await expect(w.deleteClaim(job, testTicket())).rejects.toBeInstanceOf(FencedError);
    expect(c.objectWrites.deleteNamespacedObject).not.toHaveBeenCalled();
    expect(c.core.deleteNamespacedPod).not.toHaveBeenCalled();
    expect(c.core.createNamespacedPodEviction).not.toHaveBeenCalled();
    expect(c.core.replaceNamespacedConfigMap).not.toHaveBeenCalled();
    expect(c.custom.patchNamespacedCustomObject).not.toHaveBeenCalled();
    expect(c.events.createNamespacedEvent).not.toHaveBeenCalled();
    await expect(fencedClients(c, () => false).core.readNamespacedPod({ namespace: 'ml', name: 'a' })).resolves.toMatchObject({ metadata: { name: 'a' } });
  });

  it('asks the fence at each write, not when the writer was made: a pass in flight stops before its next write', async () => {
    const c = clients();
    let open = true;
    const w = new ClusterWriter(
      fencedClients(c, () => open),
      { ...options, recordEvents: false },
    );
    await w.removePod(pod, testTicket(), 'gone');
    open = false;
    await expect(w.removePod({ ...pod, name: 'b', uid: 'u2' } as RemovalTarget, testTicket(), 'gone')).rejects.toBeInstanceOf(FencedError);
    expect(c.core.deleteNamespacedPod).toHaveBeenCalledTimes(1);
  });
});
