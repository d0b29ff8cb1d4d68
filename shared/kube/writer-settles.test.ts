import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { admissionPort, RemovalTicket, unlimited, unsent } from './admission.js';
import type { RemovalTarget } from './evict-only.js';
import { ClusterWriter, type WriterClients } from './writer.js';
import { WriteRefusals } from './write-refusals.js';
import { createLogger } from '../log.js';
import { MetricsRecorder } from '../metrics/recorder.js';

// Issue 45, item 4: admission inside the writer. A removal is sent only with a ticket, which the
// writer settles itself on the API server's answer by the one charge rule (admission.ts
// `removalCharged`), exactly once, whoever tries again; a removal without one does not compile.

/** What client-node (and the direct requests) throw when the API server answers `code` with a Status. */
const apiError = (code: number, reason: string, message = reason) =>
  Object.assign(new Error(`HTTP-Code: ${code}`), { code, body: JSON.stringify({ kind: 'Status', reason, message }) });

const pod = (phase: 'Failed' | 'Running', namespace = 'ml') =>
  ({ namespace, name: 'a', uid: 'u1', resourceVersion: '7', phase, evictOnly: false }) as RemovalTarget;
const JOBS = { group: 'batch', version: 'v1', plural: 'jobs' };
const job = { namespace: 'ml', name: 'done', uid: 'j1', resourceVersion: '9' };

/** A writer whose every request answers `answer` (a value, or a rejection). */
function writerAnswering(answer: () => Promise<unknown>) {
  const calls = vi.fn(answer);
  const core = { deleteNamespacedPod: calls, createNamespacedPodEviction: calls };
  const custom = { createNamespacedCustomObject: calls, deleteNamespacedCustomObject: calls };
  const clients = { core, podWrites: core, objectWrites: { deleteNamespacedObject: calls }, events: {}, custom };
  const writer = new ClusterWriter(clients as unknown as WriterClients, {
    dryRun: false,
    recordEvents: false,
    protectedNamespaces: ['kube-system'],
    refusals: new WriteRefusals(MetricsRecorder.off(), createLogger({ level: 'silent' })),
  });
  return { writer, calls };
}

/** The port over a ledger double that keeps what each of its tickets was settled with. */
async function admitted() {
  const settled: boolean[] = [];
  const port = admissionPort({ admit: async () => ({ ticket: { counters: ['c'] } }), settle: (_t, charged) => void settled.push(charged) });
  const a = await port.admit({ namespace: 'ml' });
  if (!('ticket' in a)) throw new Error('unreachable: the double admits every removal');
  return { ticket: a.ticket, settled };
}

const ok = () => Promise.resolve({});
const rejecting = (e: unknown) => () => Promise.reject(e);

describe('the writer settles every removal it sends, once, by the charge rule', () => {
  it.each([
    ['deleted (a DELETE answered)', 'Failed', ok, 'deleted', true],
    ['evicted (an eviction answered)', 'Running', ok, 'evicted', true],
    ['gone (404)', 'Failed', rejecting(apiError(404, 'NotFound')), 'gone', false],
    ['stale (409: a precondition failed)', 'Failed', rejecting(apiError(409, 'Conflict', 'Precondition failed: UID in precondition: u1')), 'stale', false],
    [
      'blocked (429: a disruption budget refused)',
      'Running',
      rejecting(apiError(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.")),
      'blocked',
      false,
    ],
  ] as const)('removePod %s', async (_, phase, answer, outcome, charged) => {
    const { writer, calls } = writerAnswering(answer);
    const { ticket, settled } = await admitted();
    expect((await writer.removePod(pod(phase), ticket, 'test')).outcome).toBe(outcome);
    expect(calls).toHaveBeenCalledTimes(1);
    expect(settled).toEqual([charged]);
  });

  it('a call that throws may have removed the pod (a 503, an unclassified error): charged; one refused (403) removed nothing', async () => {
    for (const [e, charged] of [
      [apiError(503, 'ServiceUnavailable'), true],
      [new TypeError('a bug in the request'), true],
      [apiError(403, 'Forbidden'), false],
    ] as const) {
      const { writer } = writerAnswering(rejecting(e));
      const { ticket, settled } = await admitted();
      await expect(writer.removePod(pod('Failed'), ticket, 'test')).rejects.toBeDefined();
      expect(settled, String(e)).toEqual([charged]);
    }
  });

  it('a removal kube-tidy refuses before sending (a protected namespace) is settled uncharged', async () => {
    const { writer, calls } = writerAnswering(ok);
    const { ticket, settled } = await admitted();
    await expect(writer.removePod(pod('Failed', 'kube-system'), ticket, 'test')).rejects.toThrow(/protected/);
    expect(calls).not.toHaveBeenCalled();
    expect(settled).toEqual([false]);
  });

  it('a ticket settles once: spent again, given back after, or given back first, the ledger hears one answer', async () => {
    const { writer } = writerAnswering(ok);
    const spent = await admitted();
    await writer.removePod(pod('Failed'), spent.ticket, 'test');
    await writer.removePod(pod('Failed'), spent.ticket, 'test');
    unsent(spent.ticket);
    expect(spent.settled).toEqual([true]);
    expect(spent.ticket.settled).toBe(true);
    const back = await admitted();
    unsent(back.ticket);
    await writer.removePod(pod('Failed'), back.ticket, 'test');
    expect(back.settled).toEqual([false]);
  });

  it("the objects' deletes settle by the same rule: deleted charged; gone and stale not", async () => {
    for (const [answer, outcome, charged] of [
      [ok, 'deleted', true],
      [rejecting(apiError(404, 'NotFound')), 'gone', false],
      [rejecting(apiError(409, 'Conflict')), 'stale', false],
    ] as const) {
      const { writer } = writerAnswering(answer);
      const asRead = await admitted();
      expect(await writer.deleteAsRead(JOBS, job, asRead.ticket)).toBe(outcome);
      const claim = await admitted();
      expect(await writer.deleteClaim(job, claim.ticket)).toBe(outcome);
      const custom = await admitted();
      expect(await writer.deleteObject(JOBS, job, custom.ticket)).toBe(outcome);
      expect([asRead.settled, claim.settled, custom.settled]).toEqual([[charged], [charged], [charged]]);
    }
  });

  it("an evacuation's start is charged as one asked for: its eviction evicted or refused (429), its object created or already there", async () => {
    for (const [answer, charged] of [
      [ok, true],
      [rejecting(apiError(429, 'TooManyRequests', 'Eviction triggered evacuation of VMI')), true],
      [rejecting(apiError(409, 'Conflict')), false],
    ] as const) {
      const { writer } = writerAnswering(answer);
      const { ticket, settled } = await admitted();
      await writer.evictPodForMigration(pod('Running'), ticket);
      expect(settled).toEqual([charged]);
    }
    for (const answer of [ok, rejecting(apiError(409, 'AlreadyExists'))]) {
      const { writer } = writerAnswering(answer);
      const { ticket, settled } = await admitted();
      await writer.startEvacuation(JOBS, 'ml', { metadata: { name: 'm' } }, ticket);
      expect(settled).toEqual([true]);
    }
  });

  it("an unlimited ticket charges no ledger, needs its reason, and the writer's answer carries it", async () => {
    const { writer } = writerAnswering(ok);
    const r = await writer.removePod(pod('Failed'), unlimited('MultiKueue: the cascade'), 'test');
    expect(r).toMatchObject({ outcome: 'deleted', unlimited: 'MultiKueue: the cascade' });
    const { ticket } = await admitted();
    expect((await writer.removePod(pod('Failed'), ticket, 'test')).unlimited).toBeUndefined();
    expect(() => unlimited(' ')).toThrow(/says why/);
  });

  it('a removal without a ticket, or with anything shaped like one, does not compile', () => {
    const { writer } = writerAnswering(ok);
    // Never called: what is checked is that tsc (npx tsc -p tsconfig.json) refuses each line.
    const uncompiled = [
      // @ts-expect-error: no ticket
      () => writer.removePod(pod('Failed'), 'test'),
      // @ts-expect-error: the brakes' own ticket is not the port's
      () => writer.deleteAsRead(JOBS, job, { counters: [] }),
      // @ts-expect-error: an object shaped like a ticket is not one (its settle is private)
      () => writer.deleteClaim(job, { unlimited: 'made up', settled: false }),
      // @ts-expect-error: only the port and unlimited() make one: its constructor is private
      () => writer.evictPodForMigration(pod('Running'), new RemovalTicket(() => undefined)),
    ];
    expect(uncompiled).toHaveLength(4);
    expectTypeOf<Parameters<ClusterWriter['removePod']>[1]>().toEqualTypeOf<RemovalTicket>();
    expectTypeOf<Parameters<ClusterWriter['deleteObject']>[2]>().toEqualTypeOf<RemovalTicket>();
  });
});
