// TTL on any kind at expiry (issue 47 item 3): an add or update of an object of a kind a ttl rule
// names, as objectUpdated takes it. The event is only a hint of which object: the object is read
// by name as stored (ttl-read.ts readTtlOne), decided by the ttl rules naming its kind, and if
// expired deleted through the one writer as read (uid + resourceVersion, the admission's ticket,
// the brakes per kind: pass.ts); if it is only waiting for its expiry, it is timed as the
// objects' own kinds are (due.ts: this process's timer and an entry in its kind's due list, so
// another instance's tick acts at expiry if this one died), and whatever acts reads it again.
// A forged or stale label in the event changes nothing: the stored labels decide.
import type { Verb } from '../../cloudevents/index.js';
import { gvkName, type GroupVersionKind, type TtlRule } from '../../policy/ttl-schema.js';
import type { ObjectsHandle } from '../handle.js';
import type { ObjectsDue } from './due.js';
import { runObjectsPass } from './pass.js';
import type { ObjectResult } from './act.js';
import type { ObjectsReader } from './read.js';
import { mayNot, servedAs, type ServedKind } from './ttl-read.js';
import { failureKindOf } from '../../kube/errors.js';
import type { Logger } from '../../log.js';

const apiVersionOf = (k: GroupVersionKind) => (k.group ? `${k.group}/${k.version}` : k.version);

/** The kind a ttl rule names for this apiVersion and Kind (exactly: another group's Kind of that name is not it). */
export function ttlKindOf(rules: readonly TtlRule[], apiVersion: string, kind: string): GroupVersionKind | undefined {
  for (const r of rules) for (const k of r.kinds) if (k.kind === kind && apiVersionOf(k) === apiVersion) return k;
  return undefined;
}

/** Each distinct Kind name the policy's ttl rules name: the kinds objectUpdated takes and the standalone watch routes to it. */
export const ttlKindNames = (rules: readonly TtlRule[]): string[] => [...new Set(rules.flatMap((r) => r.kinds.map((k) => k.kind)))];

/** A ttl kind as a watch needs it: its Kind, apiVersion and plural, found by discovery (never guessed). */
export interface WatchedKind {
  kind: string;
  apiVersion: string;
  resource: string;
  namespaced: boolean;
}

/**
 * The kinds `rules` name that the cluster serves, for a watch (the standalone program's, `kube-tidy
 * bridge --policy`): each found by discovery; the others are logged and left to the pass's read to say.
 */
export async function discoverTtlKinds(r: Pick<ObjectsReader, 'objectReads'>, rules: readonly TtlRule[], log: Logger): Promise<WatchedKind[]> {
  const seen = new Map<string, GroupVersionKind>();
  for (const rule of rules) for (const k of rule.kinds) seen.set(gvkName(k), k);
  const cache = new Map<string, Promise<unknown>>();
  const out: WatchedKind[] = [];
  for (const k of seen.values()) {
    const served = await servedAs(r, k, cache).catch((e: unknown) => `discovery failed: ${(e as Error)?.message ?? String(e)}`);
    const s = typeof served === 'string' ? served : await listable(r, served);
    if (typeof s === 'string') log.warn({ kind: gvkName(k), why: s }, 'ttl: a rule names a kind that cannot be watched here');
    else out.push({ kind: k.kind, apiVersion: apiVersionOf(k), resource: s.resource.plural, namespaced: s.namespaced });
  }
  return out;
}

/**
 * `s`, or why kube-tidy may not list it: one LIST of at most one object, so that a kind without
 * RBAC is said and left out of the watch (which would otherwise fail to start, and with it every
 * other kind's), as the pass says it and goes on with the others.
 */
async function listable(r: Pick<ObjectsReader, 'objectReads'>, s: ServedKind): Promise<ServedKind | string> {
  try {
    await r.objectReads.list(s.resource, undefined, { limit: 1 });
    return s;
  } catch (e) {
    if (failureKindOf(e) !== 'forbidden') throw e;
    return mayNot('list', s);
  }
}

/** The configured policy's ttl kinds, for the standalone watch (objectUpdated's `accepts.watches`). */
export const ttlWatchKinds = (h: ObjectsHandle): Promise<WatchedKind[]> => discoverTtlKinds(h.reader, h.policy().ttl ?? [], h.log);

export interface TtlEvent {
  verb: Verb;
  /** '' for a cluster-scoped object's event. */
  namespace: string;
  name: string;
  /** The event's uid (Resource mode); a reference has none: the object stored under the name is the one. */
  uid?: string;
}

export interface TtlEventAnswer {
  outcome: string;
  uid?: string;
  why: string;
  result?: ObjectResult;
  kept?: string[];
  scheduled?: string;
  unavailable?: { kind: string; why: string }[];
  failures: { transient: number; refused: number };
}

export async function ttlEvent(h: ObjectsHandle, due: ObjectsDue, gvk: GroupVersionKind, e: TtlEvent): Promise<TtlEventAnswer> {
  const none = { transient: 0, refused: 0 };
  if (e.verb === 'delete') {
    if (e.uid) await due.forget({ kind: gvk.kind, uid: e.uid, ttl: gvk });
    return { outcome: 'nothing-to-do', why: 'already deleted', failures: none };
  }
  const summary = await runObjectsPass(h, {
    origin: 'event',
    dryRun: h.settings.dryRun,
    ttlOne: { gvk, ...(e.namespace ? { namespace: e.namespace } : {}), name: e.name, ...(e.uid ? { uid: e.uid } : {}) },
  });
  const [result] = summary.results;
  const kept = summary.kept.map((k) => k.reason);
  const waiting = summary.eligible[0];
  const uid = result?.decision.uid ?? waiting?.uid ?? summary.kept[0]?.uid ?? e.uid;
  const { scheduled } = uid
    ? await due.schedule({ kind: gvk.kind, ttl: gvk, namespace: e.namespace, name: e.name, uid }, summary)
    : ({} as { scheduled?: string });
  const unavailable = summary.unavailable;
  const why =
    result?.message ??
    result?.decision.reason ??
    kept[0] ??
    (scheduled ? `expires at ${scheduled}: timed` : unavailable?.length ? unavailable[0]!.why : 'no ttl rule selects the stored object (or it is gone)');
  return {
    outcome: result?.outcome ?? (kept.length ? 'kept' : 'nothing-to-do'),
    ...(uid ? { uid } : {}),
    why,
    ...(result ? { result } : {}),
    ...(kept.length ? { kept } : {}),
    ...(scheduled ? { scheduled } : {}),
    ...(unavailable?.length ? { unavailable } : {}),
    failures: summary.failures,
  };
}
