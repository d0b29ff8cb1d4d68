// The due list kept in the cluster: DUE_SHARDS ConfigMaps (kube-tidy-due-0..N-1 in kube-tidy's
// namespace), an entry per pod by its uid's shard, each entry {namespace, name, at} as JSON under
// the uid. What covers an instance that scaled to zero or died between "due" and "acted": the
// entry stays until a timer or a tick acted on the pod (or found it gone or no longer due).
// Read and written through the one ConfigMap store (kube/configmap-store.ts: zod-checked, at
// the resourceVersion read, created when missing); a shard holds at most DUE_SHARD_CAPACITY
// entries, one more is refused and counted.
// An entry that cannot be read (a botched edit, another tool) is only a hint lost, never a
// removal: a timer or a tick acts through removeSelected, which reads the stored pod and
// decides again, and the next sweep lists every pod and schedules again those due soon. So the
// reader drops it from its shard (one write at the resourceVersion read) and says so once: a
// counter and a Warning Event in the due list's namespace. A deleted shard is the same: its
// entries wait for the next sweep.
import { observeDueRefused, observeStateUnreadable } from '../../../metrics/observe.js';
import type { MetricsRecorder } from '../../../metrics/recorder.js';
import { ConfigMapStore, jsonEntries, type ConfigMapReader, type Seen } from '../../../kube/configmap-store.js';
import { dueName } from '../../../model/keys.js';
import type { ClusterWriter } from '../../../kube/writer.js';
import { admit, admitAll, anyScopeEntrySchema, entriesOf, entrySchema, shardOf, withdraw, type Admitted, type DueEntry, type DueShard } from '../core/due.js';

const codec = jsonEntries(entrySchema);
const anyScopeCodec = jsonEntries(anyScopeEntrySchema);
/** Writers contending for one shard: each conflict is a re-read and a write again. */
const ATTEMPTS = 5;

export interface DueListOptions {
  namespace: string;
  shards: number;
  capacity: number;
  /** Where entries refused and entries found unreadable are counted: pod cleanup's handle's recorder. */
  metrics: MetricsRecorder;
  /** Each shard's ConfigMap; default pod cleanup's `kube-tidy-due-<n>` (cleanup beyond pods keeps lists of its own). */
  name?: (shard: number) => string;
  /** Entries may name a cluster-scoped object (no namespace): a ttl rule's kinds (objects/io/due.ts). */
  anyScope?: boolean;
}

export class DueList {
  /** Entries refused because their shard was full. */
  refused = 0;

  constructor(
    private readonly core: ConfigMapReader,
    private readonly writer: () => ClusterWriter,
    private readonly o: DueListOptions,
  ) {}

  private store(shard: number): ConfigMapStore<DueShard> {
    return new ConfigMapStore(this.core, this.writer(), {
      namespace: this.o.namespace,
      name: (this.o.name ?? dueName)(shard),
      codec: this.o.anyScope ? anyScopeCodec : codec,
      createNamespaceFor: 'the due list',
      contendedMessage: `due list shard ${shard} contended`,
    });
  }

  /** Puts the pod's entry in its shard: one read, and one write unless it is there as it is. */
  async put(entry: DueEntry): Promise<'added' | 'moved' | 'unchanged' | 'full'> {
    const answer = await this.store(shardOf(entry.uid, this.o.shards)).update(({ value }) => admit(value, entry, this.o.capacity), ATTEMPTS);
    if (answer === 'full') {
      this.refused++;
      observeDueRefused(this.o.metrics, 'list-full');
    }
    return answer;
  }

  /** Puts many entries (a sweep's pods due soon): one read and at most one write per shard they fall in. */
  async putAll(entries: readonly DueEntry[]): Promise<Admitted> {
    const byShard = new Map<number, DueEntry[]>();
    for (const e of entries) {
      const s = shardOf(e.uid, this.o.shards);
      byShard.set(s, [...(byShard.get(s) ?? []), e]);
    }
    const answers = await Promise.all([...byShard].map(([s, these]) => this.store(s).update(({ value }) => admitAll(value, these, this.o.capacity), ATTEMPTS)));
    const total: Admitted = { added: 0, moved: 0, unchanged: 0, full: 0 };
    for (const a of answers) for (const k of Object.keys(total) as (keyof Admitted)[]) total[k] += a[k];
    this.refused += total.full;
    observeDueRefused(this.o.metrics, 'list-full', total.full);
    return total;
  }

  /**
   * Takes these pods' entries out: one read and at most one write per shard they live in.
   * Removals for one shard are queued behind the one in flight and then written together, so
   * many timers firing at once (a Job's pods failing together) cost a write per shard, not a
   * round of conflicts per pod. Answers how many of these were there.
   */
  async remove(uids: Iterable<string>): Promise<number> {
    const byShard = new Map<number, string[]>();
    for (const uid of uids)
      for (const s of new Set([shardOf(uid, this.o.shards), ...(this.readIn.get(uid) ?? [])])) byShard.set(s, [...(byShard.get(s) ?? []), uid]);
    const removed = await Promise.all(
      [...byShard].map(async ([s, these]) => {
        const gone = await this.enqueue(s, these);
        return these.filter((uid) => gone.has(uid)).length;
      }),
    );
    return removed.reduce((a, b) => a + b, 0);
  }

  private readonly queues = new Map<number, { uids: Set<string>; run: Promise<Set<string>> }>();

  private enqueue(shard: number, uids: readonly string[]): Promise<Set<string>> {
    let q = this.queues.get(shard);
    if (!q) {
      const prev = this.running.get(shard) ?? Promise.resolve(new Set<string>());
      const batch = { uids: new Set<string>(), run: undefined as unknown as Promise<Set<string>> };
      batch.run = prev
        .catch(() => new Set<string>())
        .then(() => {
          // From here on, newcomers wait for the next batch.
          this.queues.delete(shard);
          return this.removeFrom(shard, [...batch.uids]);
        });
      this.running.set(shard, batch.run);
      this.queues.set(shard, (q = batch));
    }
    for (const uid of uids) q.uids.add(uid);
    return q.run;
  }

  private readonly running = new Map<number, Promise<Set<string>>>();

  private removeFrom(shard: number, uids: readonly string[]): Promise<Set<string>> {
    return this.store(shard).update(({ value }) => {
      const present = uids.filter((uid) => value.has(uid));
      return { ...withdraw(value, present), answer: new Set(present) };
    }, ATTEMPTS);
  }

  /**
   * Where the last read found each entry, when that is not its uid's shard: kube-tidy never
   * writes one there, but another writer (a forger, a release with another DUE_SHARDS) may, and
   * an entry `remove` could not find would be read, and acted on, at every tick.
   */
  private readIn = new Map<string, number[]>();

  /** Every entry: one GET per shard, never a pod LIST (and a write for a shard that holds unreadable entries). */
  async read(): Promise<DueEntry[]> {
    const shards = await Promise.all(Array.from({ length: this.o.shards }, (_, s) => this.store(s).read()));
    await Promise.all(shards.map((seen, s) => (seen.unreadable.length ? this.dropUnreadable(s, seen) : undefined)));
    const readIn = new Map<string, number[]>();
    for (const [s, seen] of shards.entries())
      for (const uid of seen.value.keys()) if (shardOf(uid, this.o.shards) !== s) readIn.set(uid, [...(readIn.get(uid) ?? []), s]);
    this.readIn = readIn;
    return shards.flatMap((seen) => entriesOf(seen.value));
  }

  /** Writes the shard without the entries that cannot be read; said by the reader whose write did it. */
  private async dropUnreadable(shard: number, seen: Seen<DueShard>): Promise<void> {
    const writer = this.writer();
    if (writer.dryRun) return;
    const store = this.store(shard);
    // Someone wrote first (false), or the write failed (transient, or RBAC): the entries stay
    // unreadable and left out of what is read, and the next read tries again; never the tick's error.
    const written = await store.write(seen.cm, seen.value).catch(() => false as const);
    if (written === false) return;
    const n = seen.unreadable.length;
    observeStateUnreadable(this.o.metrics, 'due-list', 'unreadable', n);
    const keys = seen.unreadable.map((u) => `${u.key} (${u.why})`).join(', ');
    await writer
      .recordNamespaceEvent(this.o.namespace, {
        reason: 'DueListUnreadable',
        action: 'Drop',
        type: 'Warning',
        note: `kube-tidy: due list ${store.ref}: ${n} entr${n === 1 ? 'y' : 'ies'} could not be read and ${n === 1 ? 'was' : 'were'} dropped: ${keys}`.slice(
          0,
          1000,
        ),
        once: `due-unreadable-${shard}-${seen.cm?.metadata?.resourceVersion ?? ''}`,
      })
      .catch(() => undefined);
  }
}
