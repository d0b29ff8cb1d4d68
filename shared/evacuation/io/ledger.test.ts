// The slot ledger on the one ConfigMap store: what the old code wrote reads the same, and the
// conflict and dry-run rules hold. (Against an API server: test/integration/evacuation.)
import { ApiException, type V1ConfigMap } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { TransientKubeError } from '../../kube/errors.js';
import type { ClusterWriter } from '../../kube/writer.js';
import { Ledger, LEDGER_NAME, listSlots, slotsCodec } from './ledger.js';

const limits = { perCluster: 2, perNode: 1 };

/** One ConfigMap as the API server keeps it; each write meets `conflicts` 409s first. */
function cluster(data: Record<string, string> | undefined, o: { conflicts?: number; dryRun?: boolean } = {}) {
  let cm: V1ConfigMap | undefined = data && { metadata: { name: LEDGER_NAME, namespace: 'ns', resourceVersion: '1' }, data };
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

// What the ledger wrote before it moved onto the store: JSON.stringify({ pod, node, at }) per uid.
const OLD = { 'uid-a': '{"pod":"ml/virt-launcher-a","node":"n1","at":1700000000000}' };

describe('the slots on the wire', () => {
  it('an entry in the old shape reads as the same slot', async () => {
    expect(await listSlots(cluster(OLD).core, 'ns')).toEqual([{ uid: 'uid-a', pod: 'ml/virt-launcher-a', node: 'n1', at: 1700000000000 }]);
  });

  it('is written in the old shape, one JSON entry per pod uid', () => {
    expect(slotsCodec.encode(slotsCodec.decode(OLD).value)).toEqual(OLD);
  });

  it('no ConfigMap holds no slot', async () => expect(await listSlots(cluster(undefined).core, 'ns')).toEqual([]));

  const rows: { sentence: string; raw: string; want: { pod: string; node: string; at: number } | undefined }[] = [
    { sentence: 'text that is not JSON holds no slot', raw: '{oops', want: undefined },
    { sentence: 'JSON null holds no slot', raw: 'null', want: undefined },
    { sentence: 'any other JSON holds a slot, as it always did (the tick frees it as stale)', raw: '5', want: { pod: 'undefined', node: 'undefined', at: 0 } },
    { sentence: 'an object with odd fields holds a slot, the fields as they come', raw: '{"pod":1,"at":"x"}', want: { pod: '1', node: 'undefined', at: 0 } },
  ];
  for (const row of rows) it(row.sentence, () => expect(slotsCodec.decode({ u: row.raw }).value.get('u')).toEqual(row.want));
});

describe('Ledger', () => {
  const slot = (uid: string, node: string) => ({ uid, pod: `ns/${uid}`, node, at: 5 });

  it('takes a slot next to the ones held, in the same shape', async () => {
    const c = cluster(OLD);
    expect(await new Ledger(c.core, c.writer, 'ns').acquire(slot('b', 'n2'), limits)).toEqual({ ok: true, held: false });
    expect(c.stored()).toEqual({ ...OLD, b: '{"pod":"ns/b","node":"n2","at":5}' });
  });

  it('reads again and decides again after a conflict', async () => {
    const c = cluster(OLD, { conflicts: 2 });
    expect(await new Ledger(c.core, c.writer, 'ns').acquire(slot('b', 'n2'), limits)).toEqual({ ok: true, held: false });
    expect(c.reads()).toBe(3);
  });

  it('is a transient error after 10 contended rounds, as before', async () => {
    const c = cluster(OLD, { conflicts: 10 });
    const got = new Ledger(c.core, c.writer, 'ns').acquire(slot('b', 'n2'), limits);
    await expect(got).rejects.toThrow(TransientKubeError);
    await expect(got).rejects.toThrow(`ns/${LEDGER_NAME}: still contended after 10 rounds`);
  });

  it('writes nothing when the limits say no, or the pod holds one', async () => {
    const c = cluster(OLD);
    const ledger = new Ledger(c.core, c.writer, 'ns');
    expect(await ledger.acquire(slot('b', 'n1'), limits)).toMatchObject({ ok: false });
    expect(await ledger.acquire(slot('uid-a', 'n1'), limits)).toEqual({ ok: true, held: true });
    expect(c.writes).toEqual([]);
  });

  it('gives back the slots picked, and writes nothing when none is held', async () => {
    const c = cluster({ ...OLD, b: '{"pod":"ns/b","node":"n2","at":5}' });
    const ledger = new Ledger(c.core, c.writer, 'ns');
    await ledger.release((s) => s.uid === 'b');
    expect(c.stored()).toEqual(OLD);
    await ledger.release((s) => s.uid === 'b');
    expect(c.writes).toHaveLength(1);
  });

  it('in a dry run, keeps what it would have taken and given back, and stores nothing', async () => {
    const c = cluster(OLD, { dryRun: true });
    const ledger = new Ledger(c.core, c.writer, 'ns');
    await ledger.acquire(slot('b', 'n2'), limits);
    await ledger.release((s) => s.uid === 'uid-a');
    expect((await ledger.slots()).map((s) => s.uid)).toEqual(['b']);
    expect(c.stored()).toEqual(OLD);
  });
});
