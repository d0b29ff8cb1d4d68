// The one "due" rule every mode shares: a pod that only time stands in the way of (its
// decision's eligibleAt) is acted on at that time, by an in-process timer, by a tick reading
// the due list, or by standalone's timers rebuilt from its watch. Pure: the times come in,
// what to do goes out; the timers and the ConfigMaps are io/.
import { z } from 'zod';
import { namespaceName, objectName } from '../../../model/pod-schema.js';

/** One pod due at `at` (ms since the epoch), as the due list and the timers keep it. */
export interface DueEntry {
  namespace: string;
  name: string;
  uid: string;
  at: number;
}

/**
 * What to do with a pod whose decision says `eligibleAt`: `list` when it is due within the
 * horizon (a timer and, when the due list is kept, an entry), `recheck` when it is further
 * away (no entry: the sweep and a later event cover it, and a timer only looks again at the
 * horizon), nothing when there is no eligibleAt.
 */
export type Schedule = { kind: 'list'; at: number } | { kind: 'recheck'; at: number };

export function scheduleOf(eligibleAt: string | number | undefined, now: number, horizonMs: number): Schedule | undefined {
  if (eligibleAt === undefined) return undefined;
  const at = typeof eligibleAt === 'number' ? eligibleAt : Date.parse(eligibleAt);
  if (Number.isNaN(at)) return undefined;
  return at - now <= horizonMs ? { kind: 'list', at } : { kind: 'recheck', at };
}

/**
 * When a timer for `at` should fire and whether it acts then: never armed further than
 * `maxArmMs` ahead (a far timer only looks again, so no timer waits days and none overflows
 * Node's 2^31 ms), never in the past.
 */
export function armOf(at: number, now: number, maxArmMs: number): { delayMs: number; acts: boolean } {
  const left = at - now;
  if (left > maxArmMs) return { delayMs: maxArmMs, acts: false };
  return { delayMs: Math.max(0, left), acts: true };
}

/**
 * The entries a tick takes: those due by `until` (its look-ahead, at most its own deadline),
 * soonest first, overdue ones included (an instance that died before acting leaves them);
 * those overdue by more than `staleMs` are `expired`: dropped from the list, the sweep covers
 * them. The rest wait for a later tick.
 */
export function dueIn(entries: Iterable<DueEntry>, now: number, until: number, staleMs: number): { due: DueEntry[]; expired: DueEntry[] } {
  const due: DueEntry[] = [];
  const expired: DueEntry[] = [];
  for (const e of entries) {
    if (e.at < now - staleMs) expired.push(e);
    else if (e.at <= until) due.push(e);
  }
  due.sort((a, b) => a.at - b.at || a.uid.localeCompare(b.uid));
  return { due, expired };
}

/** The shard an entry lives in, by its pod's uid: stable across instances and restarts (FNV-1a). */
export function shardOf(uid: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < uid.length; i++) {
    h ^= uid.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}

/** A shard as stored: entries by pod uid (a ConfigMap key; a uid is one). */
export type DueShard = Map<string, Omit<DueEntry, 'uid'>>;

/**
 * One entry's value in the ConfigMap (its key is the uid), checked on read: a mangled one is
 * left out. Names as the API server accepts them (DNS label / subdomain), not only by length:
 * an entry names the pod a tick will GET, so it must be a name that GET can take.
 */
export const entrySchema = z.strictObject({
  namespace: namespaceName,
  name: objectName,
  at: z.number().int().nonnegative(),
});

/** An entry of a list that may hold cluster-scoped objects (a ttl rule's Namespace or ClusterRole): no namespace. */
export const anyScopeEntrySchema = entrySchema.extend({ namespace: namespaceName.or(z.literal('')) });

export const entriesOf = (shard: DueShard): DueEntry[] => [...shard].map(([uid, e]) => ({ uid, ...e }));

/**
 * `entry` put into `shard`: `added`, `moved` (its time changed), `unchanged` (already there as
 * it is: nothing to write), or `full` (the shard holds `capacity` others: refused, so a shard
 * never outgrows a ConfigMap).
 */
export function admit(shard: DueShard, entry: DueEntry, capacity: number): { next?: DueShard; answer: 'added' | 'moved' | 'unchanged' | 'full' } {
  const had = shard.get(entry.uid);
  if (had && had.at === entry.at && had.namespace === entry.namespace && had.name === entry.name) return { answer: 'unchanged' };
  if (!had && shard.size >= capacity) return { answer: 'full' };
  const next = new Map(shard);
  next.set(entry.uid, { namespace: entry.namespace, name: entry.name, at: entry.at });
  return { next, answer: had ? 'moved' : 'added' };
}

/** What putting many entries into one shard did, by answer. */
export type Admitted = Record<'added' | 'moved' | 'unchanged' | 'full', number>;

/**
 * `entries` put into `shard` one after the other as `admit` does (a sweep listing what it saw
 * due soon): one next shard for all of them, so a shard costs one write whatever their number.
 */
export function admitAll(shard: DueShard, entries: Iterable<DueEntry>, capacity: number): { next?: DueShard; answer: Admitted } {
  const answer: Admitted = { added: 0, moved: 0, unchanged: 0, full: 0 };
  let current = shard;
  let changed = false;
  for (const entry of entries) {
    const one = admit(current, entry, capacity);
    answer[one.answer] += 1;
    if (one.next) {
      current = one.next;
      changed = true;
    }
  }
  return changed ? { next: current, answer } : { answer };
}

/** `uids` taken out of `shard`: the next shard when any was there. */
export function withdraw(shard: DueShard, uids: Iterable<string>): { next?: DueShard; answer: number } {
  const next = new Map(shard);
  let removed = 0;
  for (const uid of uids) if (next.delete(uid)) removed++;
  return removed ? { next, answer: removed } : { answer: 0 };
}
