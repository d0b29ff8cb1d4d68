// The slot store on the one ConfigMap store: what the old code wrote reads the same, and the
// conflict and dry-run rules hold. (Against an API server: test/integration/evacuation.)
import { ApiException, type V1ConfigMap } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { TransientKubeError } from '../../kube/errors.js';
import type { ClusterWriter } from '../../kube/writer.js';
import { SlotStore, SLOT_STORE_NAME, listSlots, slotsCodec } from './slot-store.js';

const limits = { perCluster: 2, perNode: 1 };

/** One ConfigMap as the API server keeps it; each write meets `conflicts` 409s first. */
function cluster(data: Record<string, string> | undefined, o: { conflicts?: number; dryRun?: boolean } = {}) {
  let cm: V1ConfigMap | undefined = data && { metadata: { name: SLOT_STORE_NAME, namespace: 'ns', resourceVersion: '1' }, data };
  let conflicts = o.conflicts ?? 0;
  const writes: Record<string, string>[] = [];
  let reads = 0;
  const core = {
    readNamespacedConfigMap: async () => {
      reads++;
      if (!cm) throw new ApiException(404, 'Not Found', JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound' }), {});
      return structuredClone(cm);
    },
  };
  const writer = {
    dryRun: o.dryRun ?? false,
    writeConfigMap: async (namespace: string, name: string, seen: V1ConfigMap | undefined, d: Record<string, string>) => {
      writes.push(d);
      if (conflicts > 0) return (conflicts--, false);
      if (seen?.metadata?.resourceVersion !== cm?.metadata?.resourceVersion) return false;
      const next = { metadata: { name, namespace, resourceVersion: String(Number(cm?.metadata?.resourceVersion ?? 0) + 1) }, data: d };
      if (!o.dryRun) cm = next;
      return next;
    },
  } as unknown as ClusterWriter;
  return { core, writer, writes, stored: () => cm?.data, reads: () => reads };
}

// What the slot store wrote before it moved onto the store: JSON.stringify({ pod, node, at }) per uid.
const OLD = { 'uid-a': '{"pod":"ml/virt-launcher-a","node":"n1","at":1700000000000}' };

describe('the slots on the wire', () => {
  it('an entry in the old shape reads as the same slot', async () => {
    expect(await listSlots(cluster(OLD).core, 'ns')).toEqual([{ uid: 'uid-a', pod: 'ml/virt-launcher-a', node: 'n1', at: 1700000000000 }]);
  });

  it('is written in the old shape, one JSON entry per pod uid', () => {
    expect(slotsCodec.encode(slotsCodec.decode(OLD).value)).toEqual(OLD);
  });

  it('no ConfigMap holds no slot', async () => expect(await listSlots(cluster(undefined).core, 'ns')).toEqual([]));

  // Issue 33: an entry that cannot be read is no evidence its pod is not in flight. It holds a
  // slot on no known node (the cluster-wide limit counts it) until a tick frees it as stale.
  const rows: { sentence: string; raw: string }[] = [
    { sentence: 'text that is not JSON (a truncated entry)', raw: '{"pod":"ml/virt-launcher-a","no' },
    { sentence: 'JSON null', raw: 'null' },
    { sentence: 'JSON that is no object', raw: '5' },
    { sentence: 'an object with odd fields (a hand edit)', raw: '{"pod":1,"at":"x"}' },
    { sentence: 'an object with a field missing', raw: '{"pod":"ml/a","at":5}' },
  ];
  for (const row of rows)
    it(`${row.sentence} holds a slot on no known node, said unreadable`, () => {
      const slot = slotsCodec.decode({ u: row.raw }).value.get('u');
      expect(slot).toMatchObject({ raw: row.raw, why: expect.any(String) });
    });

  it('an unreadable entry is written back as it was when another slot is taken or freed', async () => {
    const c = cluster({ ...OLD, bad: '{oops' });
    const ledger = new SlotStore(c.core, c.writer, 'ns');
    await ledger.acquire({ uid: 'b', pod: 'ns/b', node: 'n2', at: 5 }, { perCluster: 5, perNode: 5 });
    await ledger.release((s) => s.uid === 'uid-a');
    expect(c.stored()).toEqual({ bad: '{oops', b: '{"pod":"ns/b","node":"n2","at":5}' });
  });

  it("an unreadable entry counts against the cluster-wide limit, not a node's, and the refusal says so", async () => {
    const c = cluster({ ...OLD, bad: 'null' });
    const ledger = new SlotStore(c.core, c.writer, 'ns');
    expect(await listSlots(c.core, 'ns')).toContainEqual({ uid: 'bad', pod: '', node: '', at: 0, unreadable: expect.any(String) });
    expect(await ledger.acquire({ uid: 'b', pod: 'ns/b', node: 'n2', at: 5 }, limits)).toEqual({
      ok: false,
      why: "2 evacuations in flight in the cluster (limit 2); 1 of them unreadable entries of the slots' ConfigMap, held until a tick frees them",
    });
    expect(await ledger.acquire({ uid: 'b', pod: 'ns/b', node: 'n2', at: 5 }, { perCluster: 3, perNode: 1 })).toEqual({ ok: true, held: false });
  });
});

describe('SlotStore', () => {
  const slot = (uid: string, node: string) => ({ uid, pod: `ns/${uid}`, node, at: 5 });

  it('takes a slot next to the ones held, in the same shape', async () => {
    const c = cluster(OLD);
    expect(await new SlotStore(c.core, c.writer, 'ns').acquire(slot('b', 'n2'), limits)).toEqual({ ok: true, held: false });
    expect(c.stored()).toEqual({ ...OLD, b: '{"pod":"ns/b","node":"n2","at":5}' });
  });

  it('reads again and decides again after a conflict', async () => {
    const c = cluster(OLD, { conflicts: 2 });
    expect(await new SlotStore(c.core, c.writer, 'ns').acquire(slot('b', 'n2'), limits)).toEqual({ ok: true, held: false });
    expect(c.reads()).toBe(3);
  });

  it('is a transient error after 10 contended rounds, as before', async () => {
    const c = cluster(OLD, { conflicts: 10 });
    const got = new SlotStore(c.core, c.writer, 'ns').acquire(slot('b', 'n2'), limits);
    await expect(got).rejects.toThrow(TransientKubeError);
    await expect(got).rejects.toThrow(`ns/${SLOT_STORE_NAME}: still contended after 10 rounds`);
  });

  it('writes nothing when the limits say no, or the pod holds one', async () => {
    const c = cluster(OLD);
    const ledger = new SlotStore(c.core, c.writer, 'ns');
    expect(await ledger.acquire(slot('b', 'n1'), limits)).toMatchObject({ ok: false });
    expect(await ledger.acquire(slot('uid-a', 'n1'), limits)).toEqual({ ok: true, held: true });
    expect(c.writes).toEqual([]);
  });

  it('gives back the slots picked, and writes nothing when none is held', async () => {
    const c = cluster({ ...OLD, b: '{"pod":"ns/b","node":"n2","at":5}' });
    const ledger = new SlotStore(c.core, c.writer, 'ns');
    await ledger.release((s) => s.uid === 'b');
    expect(c.stored()).toEqual(OLD);
    await ledger.release((s) => s.uid === 'b');
    expect(c.writes).toHaveLength(1);
  });

  it('in a dry run, keeps what it would have taken and given back, and stores nothing', async () => {
    const c = cluster(OLD, { dryRun: true });
    const ledger = new SlotStore(c.core, c.writer, 'ns');
    await ledger.acquire(slot('b', 'n2'), limits);
    await ledger.release((s) => s.uid === 'uid-a');
    expect((await ledger.slots()).map((s) => s.uid)).toEqual(['b']);
    expect(c.stored()).toEqual(OLD);
  });

  it('settles in one write: frees what is picked, writes the slots of pods in flight it holds no readable entry for', async () => {
    const c = cluster({ ...OLD, bad: '{oops', gone: '{"pod":"ns/gone","node":"n1","at":5}' });
    const ledger = new SlotStore(c.core, c.writer, 'ns');
    const done = await ledger.settle((s) => s.uid === 'gone', [slot('bad', 'n2'), slot('uid-a', 'n9'), slot('new', 'n3')]);
    expect(done).toMatchObject({ absent: false, freed: [{ uid: 'gone' }], restored: [{ uid: 'bad' }, { uid: 'new' }] });
    expect(c.stored()).toEqual({ ...OLD, bad: '{"pod":"ns/bad","node":"n2","at":5}', new: '{"pod":"ns/new","node":"n3","at":5}' });
    expect(c.writes).toHaveLength(1);
  });

  it('settling with no ConfigMap creates it with the slots restored, and says it was absent', async () => {
    const c = cluster(undefined);
    expect(await new SlotStore(c.core, c.writer, 'ns').settle(() => false, [slot('a', 'n1')])).toMatchObject({ absent: true, restored: [{ uid: 'a' }] });
    expect(c.stored()).toEqual({ a: '{"pod":"ns/a","node":"n1","at":5}' });
  });
});
