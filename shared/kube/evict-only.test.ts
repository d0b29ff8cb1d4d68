import { describe, expect, it, vi } from 'vitest';
import { ANNOTATIONS } from '../evacuation/core/annotations.js';
import type { Stored } from '../model/identity.js';
import type { Pod } from '../model/objects.js';
import { removalTarget } from './evict-only.js';
import { storedPodId } from './from-client.js';
import { ClusterWriter, type WriterClients } from './writer.js';
import { testTicket } from '../../test/fixtures/ticket.js';

// The writer and the descheduler's request-evict-only mark: what removing such a pod sends.

const stored = (phase: string, annotations: Record<string, string> = {}) =>
  ({ metadata: { namespace: 'ml', name: 'vm-launcher', uid: 'u1', resourceVersion: '7', annotations }, status: { phase } }) as unknown as Stored<Pod>;
const MARK = { [ANNOTATIONS.requestEvictOnly]: '' };

function clients() {
  const core = {
    createNamespacedPodEviction: vi.fn(async () => ({})),
    deleteNamespacedPod: vi.fn(async () => ({})),
    patchNamespacedPod: vi.fn(async () => ({ metadata: { resourceVersion: '8' } })),
  };
  return { core, events: {}, custom: {} };
}
const writerOf = (c: ReturnType<typeof clients>, dryRun = false) =>
  new ClusterWriter({ ...c, podWrites: c.core } as unknown as WriterClients, { dryRun, recordEvents: false, protectedNamespaces: ['kube-system'] });

describe('removePod and request-evict-only', () => {
  it('a running pod marked request-evict-only is not evicted: its evacuation is requested, tied to its resourceVersion', async () => {
    const c = clients();
    const r = await writerOf(c).removePod(removalTarget(stored('Running', MARK)), testTicket(), 'test', { requester: 'strategy:PodLifeTime' });
    expect(r).toMatchObject({ action: 'evict', outcome: 'evacuation-requested', dryRun: false });
    expect(c.core.createNamespacedPodEviction).not.toHaveBeenCalled();
    expect(c.core.patchNamespacedPod).toHaveBeenCalledWith(
      { namespace: 'ml', name: 'vm-launcher', body: { metadata: { resourceVersion: '7', annotations: { [ANNOTATIONS.request]: 'strategy:PodLifeTime' } } } },
      expect.anything(),
    );
  });

  it("in a dry run the request goes through the API server's dry run only", async () => {
    const c = clients();
    const r = await writerOf(c, true).removePod(removalTarget(stored('Pending', MARK)), testTicket(), 'test');
    expect(r).toMatchObject({ outcome: 'evacuation-requested', dryRun: true });
    expect(c.core.patchNamespacedPod).toHaveBeenCalledWith(expect.objectContaining({ dryRun: 'All' }), expect.anything());
  });

  it('one already requested (or under way) is asked for again by nobody: nothing is sent', async () => {
    const c = clients();
    for (const a of [
      { ...MARK, [ANNOTATIONS.request]: 'someone' },
      { ...MARK, [ANNOTATIONS.state]: 'Backoff' },
    ]) {
      expect((await writerOf(c).removePod(removalTarget(stored('Running', a)), testTicket(), 'test')).outcome).toBe('evacuating');
    }
    expect(c.core.patchNamespacedPod).not.toHaveBeenCalled();
    expect(c.core.createNamespacedPodEviction).not.toHaveBeenCalled();
  });

  it('a pod that changed since it was read answers stale (the request is tied to what was read)', async () => {
    const c = clients();
    c.core.patchNamespacedPod.mockRejectedValueOnce(
      Object.assign(new Error('conflict'), { code: 409, body: '{"reason":"Conflict","message":"the object has been modified"}' }),
    );
    expect((await writerOf(c).removePod(removalTarget(stored('Running', MARK)), testTicket(), 'test')).outcome).toBe('stale');
  });

  it.each(['Failed', 'Succeeded'])('a %s pod with the mark is deleted as before (the rule is about evicting running pods)', async (phase) => {
    const c = clients();
    expect((await writerOf(c).removePod(removalTarget(stored(phase, MARK)), testTicket(), 'test')).outcome).toBe('deleted');
    expect(c.core.deleteNamespacedPod).toHaveBeenCalledOnce();
    expect(c.core.patchNamespacedPod).not.toHaveBeenCalled();
  });

  it('an unmarked running pod is evicted as before', async () => {
    const c = clients();
    expect((await writerOf(c).removePod(removalTarget(stored('Running')), testTicket(), 'test')).outcome).toBe('evicted');
    expect(c.core.createNamespacedPodEviction).toHaveBeenCalledOnce();
  });

  it('every target says what the rule makes of its pod: an unmarked pod reads evictOnly false, a marked one its mark', () => {
    expect(removalTarget(stored('Running')).evictOnly).toBe(false);
    expect(removalTarget(stored('Running', MARK)).evictOnly).toEqual({});
    expect(removalTarget(stored('Running', { ...MARK, [ANNOTATIONS.state]: 'Started' })).evictOnly).toEqual({ underWay: 'an evacuation is Started' });
  });

  it('a caller that says evictOnly: false (the MultiKueue orphan sweep) evicts a marked running pod: the choice is its own, and explicit', async () => {
    const c = clients();
    expect((await writerOf(c).removePod({ ...storedPodId(stored('Running', MARK)), evictOnly: false }, testTicket(), 'test')).outcome).toBe('evicted');
    expect(c.core.createNamespacedPodEviction).toHaveBeenCalledOnce();
    expect(c.core.patchNamespacedPod).not.toHaveBeenCalled();
  });

  it('a bare stored identity is not a target: the compiler refuses it, so no caller can forget the rule', async () => {
    const c = clients();
    // The type is the guard (tsc checks this file): at run time such an identity would be evicted, mark or not.
    // @ts-expect-error a StoredPodId says nothing about request-evict-only
    expect((await writerOf(c).removePod(storedPodId(stored('Running', MARK)), testTicket(), 'test')).outcome).toBe('evicted');
  });
});
