import { describe, expect, it } from 'vitest';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { ClusterWriter } from '../../../kube/writer.js';
import { shardOf } from '../core/due.js';
import { DueList } from './list.js';
import { counterValue } from '../../../../test/fixtures/metrics/counter.js';
import { MetricsRecorder } from '../../../metrics/recorder.js';

/** The recorder the host would build, which the tests' lists and timers count in. */
const metrics = new MetricsRecorder();
const dueRefusedCount = (reason: string) => counterValue(metrics, 'kube_tidy_due_refused_total', { reason });
const unreadableCount = () => counterValue(metrics, 'kube_tidy_state_unreadable_total', { store: 'due-list', found: 'unreadable' });

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);

/** ConfigMaps in memory, written only at the resourceVersion read (false otherwise), as the API server would; every read and write counted. */
function fakeCluster() {
  const stored = new Map<string, V1ConfigMap>();
  let rv = 0;
  const counts = { reads: 0, writes: 0, conflicts: 0 };
  const events: { reason: string; note: string }[] = [];
  const core = {
    readNamespacedConfigMap: async ({ name }: { name: string }) => {
      counts.reads++;
      await new Promise((r) => setTimeout(r, 1));
      const cm = stored.get(name);
      if (!cm) throw Object.assign(new Error('not found'), { code: 404, body: '{"reason":"NotFound","code":404}' });
      return structuredClone(cm);
    },
  };
  const writer = {
    writeConfigMap: async (_ns: string, name: string, seen: V1ConfigMap | undefined, data: Record<string, string>) => {
      counts.writes++;
      await new Promise((r) => setTimeout(r, 1));
      const now = stored.get(name);
      if ((now?.metadata?.resourceVersion ?? undefined) !== (seen?.metadata?.resourceVersion ?? undefined)) {
        counts.conflicts++;
        return false;
      }
      const next = { metadata: { name, resourceVersion: String(++rv) }, data };
      stored.set(name, next);
      return structuredClone(next);
    },
    dryRun: false,
    recordNamespaceEvent: async (_ns: string, e: { reason: string; note: string }) => void events.push(e),
  } as unknown as ClusterWriter;
  return { core, writer, counts, stored, events };
}

const uid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

describe('DueList', () => {
  it('puts each entry in its uid’s shard, refuses one more than a shard holds, and reads every shard once', async () => {
    const c = fakeCluster();
    const list = new DueList(c.core, () => c.writer, { namespace: 'kube-tidy', shards: 2, capacity: 3, metrics });
    const answers: string[] = [];
    for (let i = 0; i < 8; i++) answers.push(await list.put({ namespace: 'ml', name: `p${i}`, uid: uid(i), at: T0 + i }));
    const perShard = [0, 1].map((s) => Array.from({ length: 8 }, (_, i) => i).filter((i) => shardOf(uid(i), 2) === s).length);
    expect(answers.filter((a) => a === 'full')).toHaveLength(perShard.reduce((n, k) => n + Math.max(0, k - 3), 0));
    expect(list.refused).toBe(answers.filter((a) => a === 'full').length);
    expect(await dueRefusedCount('list-full')).toBe(list.refused);
    c.counts.reads = 0;
    const entries = await list.read();
    expect(c.counts.reads).toBe(2);
    expect(entries).toHaveLength(8 - list.refused);
    for (const e of entries) expect(c.stored.get(`kube-tidy-due-${shardOf(e.uid, 2)}`)?.data?.[e.uid]).toBeDefined();
  });

  it('many removals at once for one shard are written together, not one conflict round each', async () => {
    const c = fakeCluster();
    const list = new DueList(c.core, () => c.writer, { namespace: 'kube-tidy', shards: 1, capacity: 1000, metrics });
    for (let i = 0; i < 50; i++) await list.put({ namespace: 'ml', name: `p${i}`, uid: uid(i), at: T0 });
    c.counts.writes = 0;
    c.counts.conflicts = 0;
    const removed = await Promise.all(Array.from({ length: 50 }, (_, i) => list.remove([uid(i)])));
    expect(removed).toEqual(Array.from({ length: 50 }, () => 1));
    expect(await list.read()).toEqual([]);
    // The first removal's batch, then one batch of all that queued behind it.
    expect(c.counts.writes).toBeLessThanOrEqual(2);
    expect(c.counts.conflicts).toBe(0);
    // A uid that is not there counts nothing and writes nothing.
    c.counts.writes = 0;
    expect(await list.remove([uid(99)])).toBe(0);
    expect(c.counts.writes).toBe(0);
  });

  it("takes out an entry found in another shard than its uid's (a forger's, another DUE_SHARDS') from where it was read", async () => {
    const c = fakeCluster();
    const list = new DueList(c.core, () => c.writer, { namespace: 'kube-tidy', shards: 2, capacity: 10, metrics });
    await list.put({ namespace: 'ml', name: 'a', uid: uid(1), at: T0 });
    const wrong = `kube-tidy-due-${1 - shardOf(uid(2), 2)}`;
    const cm = c.stored.get(wrong) ?? { metadata: { name: wrong, resourceVersion: '1' }, data: {} };
    cm.data![uid(2)] = JSON.stringify({ namespace: 'ml', name: 'forged', at: T0 });
    c.stored.set(wrong, cm);
    expect((await list.read()).map((e) => e.uid).sort()).toEqual([uid(1), uid(2)].sort());
    expect(await list.remove([uid(2)])).toBe(1);
    expect((await list.read()).map((e) => e.uid)).toEqual([uid(1)]);
  });

  it('drops an entry it cannot read (a hint lost, never a removal), says so once, and keeps the rest', async () => {
    const c = fakeCluster();
    const list = new DueList(c.core, () => c.writer, { namespace: 'kube-tidy', shards: 1, capacity: 10, metrics });
    await list.put({ namespace: 'ml', name: 'a', uid: uid(1), at: T0 });
    await list.put({ namespace: 'ml', name: 'b', uid: uid(2), at: T0 });
    const cm = c.stored.get('kube-tidy-due-0')!;
    cm.data![uid(2)] = '{"namespace": "ml", "na';
    cm.metadata!.resourceVersion = '100';
    const before = await unreadableCount();
    expect((await list.read()).map((e) => e.uid)).toEqual([uid(1)]);
    expect(Object.keys(c.stored.get('kube-tidy-due-0')!.data!)).toEqual([uid(1)]);
    expect((await unreadableCount()) - before).toBe(1);
    expect(c.events).toEqual([expect.objectContaining({ reason: 'DueListUnreadable', note: expect.stringContaining(`${uid(2)} (not JSON`) })]);
    // Said once: the next read finds nothing to drop.
    await list.read();
    expect(c.events).toHaveLength(1);
  });

  it('a deleted shard reads as no entries: their pods wait for the next sweep', async () => {
    const c = fakeCluster();
    const list = new DueList(c.core, () => c.writer, { namespace: 'kube-tidy', shards: 1, capacity: 10, metrics });
    await list.put({ namespace: 'ml', name: 'a', uid: uid(1), at: T0 });
    c.stored.delete('kube-tidy-due-0');
    expect(await list.read()).toEqual([]);
    expect(c.events).toEqual([]);
  });
});
