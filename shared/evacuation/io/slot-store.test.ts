// The slot store on the brakes' ledger: the conflict and dry-run rules hold, a ledger that
// cannot be trusted holds every slot until a tick mends them, and the previous release's
// ConfigMap is carried in and removed. (Against an API server: test/integration/evacuation.)
import { ApiException, type V1ConfigMap } from '@kubernetes/client-node';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { TransientKubeError } from '../../kube/errors.js';
import type { ClusterWriter } from '../../kube/writer.js';
import { LEGACY_SLOTS_NAME, legacySlotsCodec } from './legacy-slots.js';
import { SlotStore, SLOT_STORE_NAME, listSlots, type SlotMemo } from './slot-store.js';

const limits = { perCluster: 2, perNode: 1 };
const T = 1_800_000_000_000;
const log = pino({ level: 'silent' });

/** ConfigMaps of namespace `ns` as the API server keeps them; each write meets `conflicts` 409s first. */
function cluster(initial: Record<string, Record<string, string>>, o: { conflicts?: number; dryRun?: boolean } = {}) {
  const cms = new Map<string, V1ConfigMap>();
  let rv = 1;
  let uid = 0;
  const put = (name: string, data: Record<string, string>) =>
    cms.set(name, { metadata: { name, namespace: 'ns', uid: `uid-${name}-${++uid}`, resourceVersion: String(++rv), managedFields: ownedBy(data) }, data });
  for (const [name, data] of Object.entries(initial)) put(name, data);
  let conflicts = o.conflicts ?? 0;
  const writes: string[] = [];
  const events: string[] = [];
  let reads = 0;
  const core = {
    readNamespacedConfigMap: async ({ name }: { name: string }) => {
      reads++;
      const cm = cms.get(name);
      if (!cm) throw new ApiException(404, 'Not Found', JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound' }), {});
      return structuredClone(cm);
    },
  };
  const writer = {
    dryRun: o.dryRun ?? false,
    writeConfigMap: async (_ns: string, name: string, seen: V1ConfigMap | undefined, d: Record<string, string>) => {
      writes.push(`write ${name}`);
      if (conflicts > 0) return (conflicts--, false);
      if (seen?.metadata?.resourceVersion !== cms.get(name)?.metadata?.resourceVersion) return false;
      const old = cms.get(name)?.metadata;
      const next = {
        metadata: { name, namespace: 'ns', uid: old?.uid ?? `uid-${name}-${++uid}`, resourceVersion: String(++rv), managedFields: ownedBy(d) },
        data: d,
      };
      if (!o.dryRun) cms.set(name, next);
      return next;
    },
    deleteConfigMap: async (_ns: string, name: string, seen: V1ConfigMap) => {
      writes.push(`delete ${name}`);
      const cm = cms.get(name);
      if (!cm) return 'gone';
      if (cm.metadata?.resourceVersion !== seen.metadata?.resourceVersion) return 'stale';
      cms.delete(name);
      return 'deleted';
    },
    recordNamespaceEvent: async (_ns: string, e: { reason: string }) => void events.push(e.reason),
  } as unknown as ClusterWriter;
  const ledger = () => (cms.has(SLOT_STORE_NAME) ? JSON.parse(cms.get(SLOT_STORE_NAME)!.data!['ledger.json']!) : undefined);
  return { core, writer, writes, events, cms, put, ledger, reads: () => reads };
}

const store = (c: ReturnType<typeof cluster>, memo: SlotMemo = {}) =>
  new SlotStore(c.core, c.writer, { namespace: 'ns', legacyNamespace: 'ns', memo, now: () => T, log });
const slot = (uid: string, node: string) => ({ uid, pod: `ns/${uid}`, node, at: 5 });
const ledgerOf = (slots: Record<string, object>, more: object = {}) => ({
  'ledger.json': JSON.stringify({ counts: {}, holds: {}, trips: {}, slots, ...more }),
});
const A = { 'uid-a': { pod: 'ml/virt-launcher-a', node: 'n1', at: 1700000000000 } };

// What the previous release wrote (its slotsCodec): JSON.stringify({ pod, node, at, attempt? }) per uid.
const OLD = {
  'uid-a': '{"pod":"ml/virt-launcher-a","node":"n1","at":1700000000000}',
  'uid-b': '{"pod":"ml/virt-launcher-b","node":"n2","at":1700000000001,"attempt":2}',
};

describe("the previous release's slots", () => {
  it('read as the same slots, in the shape it wrote', () => {
    expect(legacySlotsCodec.encode(legacySlotsCodec.decode(OLD).value)).toEqual(OLD);
  });

  it('are carried into the ledger, and the old ConfigMap is deleted at the resourceVersion read', async () => {
    const c = cluster({ [LEGACY_SLOTS_NAME]: OLD, [SLOT_STORE_NAME]: ledgerOf({}, { counts: { 'cluster|60000|0|': 1 } }) });
    const slots = await store(c).slots();
    expect(slots.map((s) => s.uid)).toEqual(['uid-a', 'uid-b']);
    expect(c.ledger().slots['uid-b']).toEqual({ pod: 'ml/virt-launcher-b', node: 'n2', at: 1700000000001, attempt: 2 });
    expect(c.ledger().counts).toEqual({ 'cluster|60000|0|': 1 });
    expect(c.cms.has(LEGACY_SLOTS_NAME)).toBe(false);
  });

  it('keep their slots against the limits across the upgrade: the next pod waits', async () => {
    const c = cluster({ [LEGACY_SLOTS_NAME]: OLD });
    expect(await store(c).acquire(slot('new', 'n3'), limits)).toEqual({ ok: false, why: '2 evacuations in flight in the cluster (limit 2)' });
  });

  it('are carried once per process; an entry the ledger already has is kept as the ledger has it', async () => {
    const c = cluster({ [LEGACY_SLOTS_NAME]: OLD, [SLOT_STORE_NAME]: ledgerOf({ 'uid-a': { pod: 'ml/virt-launcher-a', node: 'n1', at: 7, attempt: 3 } }) });
    const memo: SlotMemo = {};
    await store(c, memo).slots();
    expect(c.ledger().slots['uid-a'].attempt).toBe(3);
    const reads = c.reads();
    await store(c, memo).slots();
    expect(c.reads()).toBe(reads + 1);
  });

  it('written again since they were read (an old instance of a rolling upgrade): carried again, then deleted', async () => {
    const c = cluster({ [LEGACY_SLOTS_NAME]: OLD });
    const s = store(c);
    let once = true;
    const write = c.writer.writeConfigMap.bind(c.writer);
    c.writer.writeConfigMap = async (...args) => {
      const done = await write(...args);
      if (once) {
        once = false;
        c.put(LEGACY_SLOTS_NAME, { ...OLD, 'uid-c': '{"pod":"ml/c","node":"n3","at":9}' });
      }
      return done;
    };
    expect((await s.slots()).map((x) => x.uid)).toEqual(['uid-a', 'uid-b', 'uid-c']);
    expect(c.cms.has(LEGACY_SLOTS_NAME)).toBe(false);
  });

  it('carried by two instances at once: each slot once, the second delete finds it gone', async () => {
    const c = cluster({ [LEGACY_SLOTS_NAME]: OLD });
    const [one, two] = await Promise.all([store(c).slots(), store(c).slots()]);
    expect(one.map((s) => s.uid)).toEqual(['uid-a', 'uid-b']);
    expect(two.map((s) => s.uid)).toEqual(['uid-a', 'uid-b']);
    expect(Object.keys(c.ledger().slots)).toEqual(['uid-a', 'uid-b']);
    expect(c.cms.has(LEGACY_SLOTS_NAME)).toBe(false);
  });

  it('an entry the old format cannot read is carried as an unreadable slot: held against the cluster-wide limit, the refusal says so', async () => {
    const c = cluster({ [LEGACY_SLOTS_NAME]: { 'uid-a': OLD['uid-a'], bad: '{"pod":"ml/x","no' } });
    expect((await listSlots(c.core, 'ns')).length).toBe(0);
    expect(await store(c).acquire(slot('new', 'n3'), limits)).toEqual({
      ok: false,
      why: "2 evacuations in flight in the cluster (limit 2); 1 of them unreadable entries carried from the previous release's slots, held until a tick frees them",
    });
    expect(await listSlots(c.core, 'ns')).toContainEqual({ uid: 'bad', pod: '', node: '', at: 0, unreadable: expect.stringContaining(LEGACY_SLOTS_NAME) });
  });

  it('in a dry run: seen over the ledger, nothing written, the old ConfigMap left', async () => {
    const c = cluster({ [LEGACY_SLOTS_NAME]: OLD }, { dryRun: true });
    const s = store(c);
    expect(await s.acquire(slot('new', 'n3'), limits)).toMatchObject({ ok: false });
    expect((await s.slots()).map((x) => x.uid)).toEqual(['uid-a', 'uid-b']);
    expect(c.cms.has(LEGACY_SLOTS_NAME)).toBe(true);
    expect(c.cms.has(SLOT_STORE_NAME)).toBe(false);
  });
});

describe('SlotStore', () => {
  it("takes a slot next to the ones held, leaving the brakes' part as it was", async () => {
    const c = cluster({ [SLOT_STORE_NAME]: ledgerOf(A, { counts: { 'cluster|60000|0|': 1 } }) });
    expect(await store(c).acquire(slot('b', 'n2'), limits)).toEqual({ ok: true, held: false });
    expect(c.ledger()).toEqual({ counts: { 'cluster|60000|0|': 1 }, holds: {}, trips: {}, slots: { ...A, b: { pod: 'ns/b', node: 'n2', at: 5 } } });
  });

  it('reads again and decides again after a conflict', async () => {
    const c = cluster({ [SLOT_STORE_NAME]: ledgerOf(A) }, { conflicts: 2 });
    expect(await store(c, { carried: true }).acquire(slot('b', 'n2'), limits)).toEqual({ ok: true, held: false });
    expect(c.reads()).toBe(3);
  });

  it('is a transient error after 10 contended rounds', async () => {
    const c = cluster({ [SLOT_STORE_NAME]: ledgerOf(A) }, { conflicts: 10 });
    const got = store(c, { carried: true }).acquire(slot('b', 'n2'), limits);
    await expect(got).rejects.toThrow(TransientKubeError);
    await expect(got).rejects.toThrow(`ns/${SLOT_STORE_NAME}: still contended after 10 rounds`);
  });

  it('writes nothing when the limits say no, or the pod holds one', async () => {
    const c = cluster({ [SLOT_STORE_NAME]: ledgerOf(A) });
    const s = store(c);
    expect(await s.acquire(slot('b', 'n1'), limits)).toMatchObject({ ok: false });
    expect(await s.acquire(slot('uid-a', 'n1'), limits)).toEqual({ ok: true, held: true });
    expect(c.writes).toEqual([]);
  });

  it('gives back the slots picked, and writes nothing when none is held', async () => {
    const c = cluster({ [SLOT_STORE_NAME]: ledgerOf({ ...A, b: { pod: 'ns/b', node: 'n2', at: 5 } }) });
    const s = store(c);
    await s.release((x) => x.uid === 'b');
    expect(c.ledger().slots).toEqual(A);
    await s.release((x) => x.uid === 'b');
    expect(c.writes).toHaveLength(1);
  });

  it('in a dry run, keeps what it would have taken and given back, and stores nothing', async () => {
    const c = cluster({ [SLOT_STORE_NAME]: ledgerOf(A) }, { dryRun: true });
    const s = store(c);
    await s.acquire(slot('b', 'n2'), limits);
    await s.release((x) => x.uid === 'uid-a');
    expect((await s.slots()).map((x) => x.uid)).toEqual(['b']);
    expect(c.ledger().slots).toEqual(A);
  });

  it('settles in one write: frees what is picked, writes the slots of pods in flight it holds no entry for', async () => {
    const c = cluster({ [SLOT_STORE_NAME]: ledgerOf({ ...A, gone: { pod: 'ns/gone', node: 'n1', at: 5 } }) });
    const done = await store(c, { carried: true }).settle((x) => x.uid === 'gone', [slot('uid-a', 'n9'), slot('new', 'n3')]);
    expect(done).toMatchObject({ absent: false, freed: [{ uid: 'gone' }], restored: [{ uid: 'new' }] });
    expect(c.ledger().slots).toEqual({ ...A, new: { pod: 'ns/new', node: 'n3', at: 5 } });
    expect(c.writes).toHaveLength(1);
  });

  it('settling with no ledger creates it with the slots restored, and says it was absent', async () => {
    const c = cluster({});
    expect(await store(c).settle(() => false, [slot('a', 'n1')])).toMatchObject({ absent: true, restored: [{ uid: 'a' }] });
    expect(c.ledger().slots).toEqual({ a: { pod: 'ns/a', node: 'n1', at: 5 } });
  });
});

describe('a ledger that cannot be trusted', () => {
  it('unreadable: rebuilt blind and said (LedgerRebuilt), no slot taken until a tick mends the slots from the pods', async () => {
    const c = cluster({ [SLOT_STORE_NAME]: { 'ledger.json': '{"counts":{},"slots":{"uid-a":' } });
    const got = await store(c).acquire(slot('b', 'n2'), limits);
    expect(got).toMatchObject({ ok: false, why: expect.stringMatching(/ledger was unreadable .*evacuations in flight are unknown until a tick/) });
    expect(c.ledger().blind).toMatchObject({ why: expect.stringMatching(/^unreadable/), at: T });
    expect(c.events).toEqual(['LedgerRebuilt']);
    const done = await store(c).settle(() => false, [slot('a', 'n1')]);
    expect(done).toMatchObject({ restored: [{ uid: 'a' }], unknown: expect.stringMatching(/^unreadable/) });
    expect(await store(c).acquire(slot('b', 'n2'), limits)).toEqual({ ok: true, held: false });
    expect(c.events).toEqual(['LedgerRebuilt']);
  });

  it('a tick with nothing to restore still makes the slots known again', async () => {
    const c = cluster({ [SLOT_STORE_NAME]: { 'ledger.json': 'null' } });
    expect((await store(c).view()).unknown).toBeDefined();
    await store(c).settle(() => false, []);
    expect((await store(c).view()).unknown).toBeUndefined();
  });

  it('deleted since this process saw it: rebuilt blind, its slots unknown; a release is not a mend', async () => {
    const c = cluster({ [SLOT_STORE_NAME]: ledgerOf(A) });
    const memo: SlotMemo = {};
    await store(c, memo).slots();
    c.cms.delete(SLOT_STORE_NAME);
    await store(c, memo).release(() => true);
    expect((await store(c, memo).view()).unknown).toMatchObject({ why: 'deleted' });
    expect(await store(c, memo).acquire(slot('b', 'n2'), limits)).toMatchObject({ ok: false });
  });
});

/** managedFields as the API server records a write of `data` by kube-tidy's field manager (the ledger trusts only those: kube/written-by.ts). */
function ownedBy(data: Record<string, string> | undefined) {
  return [{ manager: 'kube-tidy', operation: 'Update', fieldsV1: { 'f:data': Object.fromEntries(Object.keys(data ?? {}).map((k) => [`f:${k}`, {}])) } }];
}
