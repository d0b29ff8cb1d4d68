// Cleanup beyond pods at eligibility: an object only time stands in the way of (the pass's
// `eligible`: its condition has not held minAge yet) is acted on at that time, by this
// process's timer (pod cleanup's DueTimers, one per object uid, bounded, unref'd, re-armed by a
// newer event) and, within the horizon, by an entry in a due list of its own (pod cleanup's
// DueList, one list per kind: `kube-tidy-objects-due-<job|pvc|workload>-<n>`), which any
// instance's tick (due-tick.ts) acts on if this one scaled to zero or died. Whatever acts,
// nothing from the time of scheduling is trusted: the pass runs again over the stored object
// (and its namespace when an owner rule could group it with others: read-one.ts), restricted to
// this uid (`only`), and the write is tied to what is read then. An object of a kind a ttl rule
// names (TTL on any kind) is timed the same way at its expiry, in a list family of its kind
// (`kube-tidy-objects-due-ttl-<kind>.<group>-<n>`, a cluster-scoped one's entry without
// a namespace), and whatever acts reads it again by name (`ttlOne`).
import { DueList, DueTimers, scheduleOf, type DueEntry, type TimerClock } from '../../cleanup/due/index.js';
import { objectsDueName, objectsTtlDueName } from '../../model/keys.js';
import type { GroupVersionKind } from '../../policy/ttl-schema.js';
import { OBJECT_KINDS, type ObjectKind } from '../../policy/objects-schema.js';
import type { ObjectsHandle } from '../handle.js';
import { runObjectsPass, type ObjectsPassSummary } from './pass.js';

/** One object due at `at`: the timers' entry, with the kind the pass is restricted to (its list says it). */
export interface ObjectDueEntry extends DueEntry {
  /** An objects rule's kind (an ObjectKind), or the Kind of `ttl`. */
  kind: string;
  /** A ttl rule's kind: the object is its, decided by the ttl rules (namespace '' when cluster-scoped). */
  ttl?: GroupVersionKind;
}

/** Which object a timer or an entry is about: enough to find its list. */
export type DueId = Pick<ObjectDueEntry, 'kind' | 'uid' | 'ttl'>;

export interface ObjectsDueOptions {
  /** The furthest a timer acts and an entry is listed (DUE_HORIZON_SECONDS). */
  horizonMs: number;
  /** Timers at once (DUE_TIMERS_MAX); one more is refused and logged, the list and the sweep cover it. */
  timersMax: number;
  /** The lists' place and size (DUE_NAMESPACE, DUE_SHARDS, DUE_SHARD_CAPACITY), as pod cleanup's. */
  list: { namespace: string; shards: number; capacity: number };
  clock?: TimerClock;
}

/** Outcomes after which an entry has not served: the brakes deferred the delete, or it failed; a later tick tries again. */
const UNSETTLED: ReadonlySet<string> = new Set(['deferred', 'blocked', 'failed', 'refused']);
export const settled = (s: Pick<ObjectsPassSummary, 'results'>): boolean => !s.results.some((r) => UNSETTLED.has(r.outcome));

export class ObjectsDue {
  readonly timers: DueTimers<ObjectDueEntry>;
  readonly lists: Readonly<Record<ObjectKind, DueList>>;
  /** The ttl kinds' lists, by group/Kind (one list family whatever the version), made as a kind is first timed or ticked. */
  private readonly ttlLists = new Map<string, DueList>();
  /** The objects this instance listed, at their time: a repeated event writes nothing. */
  private readonly listed = new Map<string, number>();

  constructor(
    readonly h: ObjectsHandle,
    readonly o: ObjectsDueOptions,
  ) {
    this.timers = new DueTimers<ObjectDueEntry>({
      act: async (e) => void (await this.act(e)),
      max: o.timersMax,
      horizonMs: o.horizonMs,
      log: h.log,
      metrics: h.metrics,
      ...(o.clock ? { clock: o.clock } : {}),
    });
    const listOf = (kind: ObjectKind) =>
      new DueList(h.reader.core, () => h.writer({ dryRun: h.settings.dryRun }), { ...o.list, metrics: h.metrics, name: (s) => objectsDueName(kind, s) });
    this.lists = Object.fromEntries(OBJECT_KINDS.map((k) => [k, listOf(k)])) as Record<ObjectKind, DueList>;
  }

  /** The list an entry of `id` lives in: its objects kind's, or its ttl kind's. */
  listOf(id: DueId): DueList {
    if (!id.ttl) return this.lists[id.kind as ObjectKind];
    const gvk = id.ttl;
    const key = `${gvk.group}/${gvk.kind}`;
    let list = this.ttlLists.get(key);
    if (!list) {
      list = new DueList(this.h.reader.core, () => this.h.writer({ dryRun: this.h.settings.dryRun }), {
        ...this.o.list,
        metrics: this.h.metrics,
        name: (s) => objectsTtlDueName(gvk, s),
        anyScope: true,
      });
      this.ttlLists.set(key, list);
    }
    return list;
  }

  /** The ttl kinds the configured policy names, one per list (a kind named at two versions: the first): the lists a tick reads beside the objects kinds'. */
  ttlKinds(): GroupVersionKind[] {
    const seen = new Map<string, GroupVersionKind>();
    for (const r of this.h.policy().ttl ?? []) for (const k of r.kinds) if (!seen.has(`${k.group}/${k.kind}`)) seen.set(`${k.group}/${k.kind}`, k);
    return [...seen.values()];
  }

  /**
   * After a pass restricted to one object: its `eligible` time arms its timer and (within the
   * horizon, outside DRY_RUN) lists it; anything else (decided, kept, gone, no longer matching)
   * clears both. Answers the time scheduled, when something will act then.
   */
  async schedule(id: Omit<ObjectDueEntry, 'at'>, summary: Pick<ObjectsPassSummary, 'eligible'>): Promise<{ scheduled?: string; listed?: string }> {
    const eligible = summary.eligible.find((e) => e.kind === id.kind && e.uid === id.uid);
    const when = scheduleOf(eligible?.at, this.h.now(), this.o.horizonMs);
    if (!when) {
      await this.forget(id);
      return {};
    }
    const entry = { ...id, at: when.at };
    const armed = this.timers.arm(entry);
    const listed = when.kind === 'list' ? await this.list(entry) : undefined;
    const scheduled = armed === 'armed' || armed === 'unchanged' || this.listed.has(id.uid);
    return { ...(scheduled ? { scheduled: new Date(when.at).toISOString() } : {}), ...(listed ? { listed } : {}) };
  }

  private async list(e: ObjectDueEntry): Promise<string | undefined> {
    if (this.h.settings.dryRun || this.listed.get(e.uid) === e.at) return undefined;
    try {
      const answer = await this.listOf(e).put({ namespace: e.namespace, name: e.name, uid: e.uid, at: e.at });
      if (answer !== 'full' && (this.listed.has(e.uid) || this.listed.size < this.o.timersMax)) this.listed.set(e.uid, e.at);
      return answer;
    } catch (err) {
      // Its timer and the sweep still cover it: the event is not failed for the entry.
      this.h.log.warn(
        { object: `${e.kind} ${e.namespace}/${e.name}`, err: (err as Error)?.message ?? String(err) },
        'objects due list: the entry could not be written',
      );
      return 'failed';
    }
  }

  /** The object needs no timer or entry any more (gone, decided, no longer waiting on time). */
  async forget(id: DueId): Promise<void> {
    this.timers.clear(id.uid);
    if (!this.listed.delete(id.uid) || this.h.settings.dryRun) return;
    // Left in the list when this fails: a tick finds the object gone or not due, and takes it out then.
    await this.listOf(id)
      .remove([id.uid])
      .catch((err: unknown) => this.h.log.warn({ uid: id.uid, err: (err as Error)?.message }, 'objects due list: the entry could not be removed'));
  }

  /** Entries a tick has done with: no longer this instance's to remove. */
  forgetListed(uids: Iterable<string>): void {
    for (const uid of uids) this.listed.delete(uid);
  }

  /** The pass over what is stored now, restricted to this object (`by`: a timer or a tick). */
  async pass(e: ObjectDueEntry): Promise<ObjectsPassSummary> {
    if (e.ttl)
      return runObjectsPass(this.h, {
        origin: 'due',
        dryRun: this.h.settings.dryRun,
        ttlOne: { gvk: e.ttl, ...(e.namespace ? { namespace: e.namespace } : {}), name: e.name, uid: e.uid },
      });
    return runObjectsPass(this.h, {
      origin: 'due',
      dryRun: this.h.settings.dryRun,
      only: { kind: e.kind as ObjectKind, uid: e.uid, name: e.name },
      readNamespace: e.namespace,
    });
  }

  /** A timer fired: the pass again; re-scheduled if it is still only waiting, its entry kept when the delete must be tried again. */
  async act(e: ObjectDueEntry): Promise<ObjectsPassSummary> {
    const summary = await this.pass(e);
    this.h.log.info(
      { object: `${e.kind} ${e.namespace}/${e.name}`, uid: e.uid, dueAt: new Date(e.at).toISOString(), outcomes: summary.results.map((r) => r.outcome) },
      'objects due: acted at eligibility (timer)',
    );
    if (settled(summary)) await this.schedule(e, summary);
    return summary;
  }

  /** Every timer cleared (a standalone replica without its Lease acts no more). */
  stop(): void {
    this.timers.stop();
  }
}
