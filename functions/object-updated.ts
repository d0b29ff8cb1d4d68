import { readDueConfig } from '../shared/cleanup/due/index.js';
import {
  anyRuleMatches,
  controlledInCopy,
  hintOf,
  objectsHandle,
  ObjectsDue,
  ObjectsTick,
  runObjectsPass,
  storedUid,
  ttlEvent,
  ttlKindNames,
  ttlKindOf,
  ttlWatchKinds,
  type ObjectsHandle,
} from '../shared/objects/index.js';
import { sumFailures } from '../shared/model/answer.js';
import { OBJECT_KINDS, type ObjectKind } from '../shared/policy/objects-schema.js';
import type { Runtime } from '../shared/runtime/runtime.js';
import type { Answer, Input } from '../shared/serve/target.js';
import { BadRequestError } from '../shared/serve/resolve.js';
import { defineTarget } from '../shared/serve/target.js';

export interface ObjectUpdatedParts {
  handle: ObjectsHandle;
  /** Acting at eligibility: this process's timers and the objects' due lists (shared/objects/io/due.ts). */
  due: ObjectsDue;
  /** The due lists' tick: acts on what any instance listed, at its time; DUE_TICK_SENDERS names who may tick (shared/objects/io/due-tick.ts). */
  tick: ObjectsTick;
  /** Clears every timer: a process that stops (a standalone replica without its Lease) acts no more. */
  stop(): void;
}

/** The group each kind's events must carry: a `Workload` of another group is not Kueue's. */
const GROUPS: Record<ObjectKind, string> = { Job: 'batch', PersistentVolumeClaim: '', Workload: 'kueue.x-k8s.io' };
const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');

const objectUpdatedParts = (rt: Runtime): ObjectUpdatedParts => {
  const handle = objectsHandle(rt);
  // Pod cleanup's due settings: one horizon, one bound on timers, one place and size of the lists for every kind a process times.
  const c = readDueConfig(rt.env);
  const due = new ObjectsDue(handle, {
    horizonMs: c.DUE_HORIZON_SECONDS * 1000,
    timersMax: c.DUE_TIMERS_MAX,
    list: { namespace: c.DUE_NAMESPACE, shards: c.DUE_SHARDS, capacity: c.DUE_SHARD_CAPACITY },
  });
  const tick = new ObjectsTick(due, { pollMs: c.DUE_POLL_SECONDS * 1000, ...(c.DUE_TICK_SENDERS ? { tickSenders: c.DUE_TICK_SENDERS } : {}) });
  return { handle, due, tick, stop: () => due.stop() };
};

/** The kinds the configured policy's `kubeTidy.objects` rules name: what the standalone watch routes here. */
const ruledKinds = (p: Pick<ObjectUpdatedParts, 'handle'>): ObjectKind[] =>
  OBJECT_KINDS.filter((k) => (p.handle.policy().objects ?? []).some((r) => r.kind === k));
/** The Kinds the configured policy's `kubeTidy.ttl` rules name (TTL on any kind, at expiry). */
const ttlKinds = (p: Pick<ObjectUpdatedParts, 'handle'>): string[] => ttlKindNames(p.handle.policy().ttl ?? []);

type ObjectInput = Extract<Input, { type: 'object' | 'reference' }>;

/** An event of a kind an objects rule may name: decided by the objects rules on the stored object (the path before TTL on any kind). */
async function objectsEvent(input: ObjectInput, { handle: h, due }: ObjectUpdatedParts, object: string): Promise<Answer> {
  const { apiVersion, kind } = input.type === 'object' ? input.event.object : input.event.ref;
  const objectKind = kind as ObjectKind;
  if (GROUPS[objectKind] !== groupOf(apiVersion))
    throw new BadRequestError(422, `objectUpdated takes ${kind} of ${GROUPS[objectKind] || 'the core group'}, not ${apiVersion}`);
  if (!ruledKinds({ handle: h }).includes(objectKind)) return { outcome: 'nothing-to-do', object, why: `no kubeTidy.objects rule names ${kind}` };
  const eventUid = input.type === 'object' ? input.event.object.metadata.uid : undefined;
  if (input.event.verb === 'delete') {
    if (eventUid) await due.forget({ kind: objectKind, uid: eventUid });
    return { outcome: 'nothing-to-do', object, why: 'already deleted' };
  }
  // Every Job is watched: a copy no rule could match (not finished yet) costs no read. Only a skip
  // is taken from it, never a timer or a due entry: a finished Job does not become unfinished, so
  // such a copy of one is stale (reordered) or forged, and what was armed re-reads when it fires.
  const hint = input.type === 'object' ? hintOf(objectKind, input.event.object) : undefined;
  if (hint && !anyRuleMatches(h.policy().objects ?? [], hint)) {
    return { outcome: 'nothing-to-do', object, why: "no rule matches the event's copy (its conditions, labels or namespace): nothing read" };
  }
  // A reference carries no uid: the stored object's is the one the pass is restricted to.
  const uid = eventUid ?? (await storedUid(h.reader, objectKind, { namespace: input.namespace, name: input.name }));
  if (!uid) return { outcome: 'nothing-to-do', object, why: 'not stored (gone since the event)' };
  const summary = await runObjectsPass(h, {
    origin: 'event',
    dryRun: h.settings.dryRun,
    // Its name: the object is read first, its namespace only if an owner rule could group it with
    // others; at once when the copy names a controller (the GET would only be repeated by the LIST).
    only: { kind: objectKind, uid, ...(input.type === 'object' && controlledInCopy(input.event.object) ? {} : { name: input.name }) },
    readNamespace: input.namespace,
  });
  const { scheduled } = await due.schedule({ kind: objectKind, namespace: input.namespace, name: input.name, uid }, summary);
  const [result] = summary.results;
  const kept = summary.kept.map((k) => k.reason);
  const outcome = result?.outcome ?? (kept.length ? 'kept' : 'nothing-to-do');
  const why =
    result?.message ?? result?.decision.reason ?? kept[0] ?? (scheduled ? `time alone brings it in at ${scheduled}` : 'no rule selects the stored object');
  return {
    outcome,
    object,
    uid,
    why,
    ...(result ? { result } : {}),
    ...(kept.length ? { kept } : {}),
    ...(scheduled ? { scheduled } : {}),
    failures: summary.failures,
  };
}

/**
 * `objectUpdated`: a Job, PersistentVolumeClaim or Kueue Workload event in, the object rules
 * decide on that one object as stored. The event's copy is only a hint of which object: the
 * object is read by name, its namespace too when a controller owns it (an owner rule could group
 * it with others: objects/io/read-one.ts), and the pass is restricted to the stored object with
 * the event's uid, so a forged condition, a stale or repeated event changes
 * nothing, and a write is tied to the uid and resourceVersion read just before it. An object
 * only time stands in the way of is timed: this process acts at its eligibility, reading again,
 * and its entry in the objects' due list lets any instance's tick act then if this one died.
 * An event whose copy no rule could match (a Job still running) is answered without a read.
 * An event of a kind a `kubeTidy.ttl` rule names (TTL on any kind, cluster-scoped kinds
 * included) is decided by those rules on the object read by name, and deleted or timed at its
 * expiry the same way (objects/io/ttl-event.ts): this target, because its timers, due lists and
 * tick are the ones an expiry needs, and one tick then serves both.
 */
export const objectUpdated = defineTarget({
  name: 'objectUpdated',
  accepts: {
    // Every event of the three kinds is well-formed (a bridge's static Triggers send them whatever
    // the policy): one no rule names is answered nothing-to-do, unread. The watch routes only those a rule names.
    kinds: (p) => [...new Set([...OBJECT_KINDS, ...ttlKinds(p)])],
    routes: (p) => [...new Set([...ruledKinds(p), ...ttlKinds(p)])],
    // A ttl kind may be cluster-scoped (Namespace, ClusterRole): its scope is discovery's.
    clusterScoped: ttlKinds,
    watches: (p) => ttlWatchKinds(p.handle),
    verbs: ['add', 'update', 'delete'],
    ticks: true,
    hint: 'objectUpdated takes Job, PersistentVolumeClaim and Workload events (acted on when a kubeTidy.objects rule names the kind) and events of the kinds a kubeTidy.ttl rule names; full passes are sweep',
  },
  needs: { policy: true, cluster: 'at-start' },
  setup: objectUpdatedParts,
  async handle(input, parts, call) {
    const { handle: h, due, tick } = parts;
    if (input.type === 'tick') {
      // Before anything is read: a tick holds a request and reads the due lists (DUE_TICK_SENDERS, as podTerminated's).
      const refused = tick.refused(input.sender);
      if (refused) throw new BadRequestError(403, refused);
      return tick.tick(call.deadline);
    }
    if (input.type !== 'object' && input.type !== 'reference') throw new Error('unreachable: accepts only object events and ticks');
    const { apiVersion, kind } = input.type === 'object' ? input.event.object : input.event.ref;
    const object = `${kind} ${input.namespace ? `${input.namespace}/` : ''}${input.name}`;
    const ttlKind = ttlKindOf(h.policy().ttl ?? [], apiVersion, kind);
    const objectsKind = (OBJECT_KINDS as readonly string[]).includes(kind);
    if (!ttlKind) {
      if (!objectsKind) return { outcome: 'nothing-to-do', object, why: `no kubeTidy.ttl rule names ${kind} at ${apiVersion}` };
      if (!input.namespace) throw new BadRequestError(400, `a ${kind} event needs a namespace (metadata.namespace)`);
      return objectsEvent(input, parts, object);
    }
    const eventUid = input.type === 'object' ? input.event.object.metadata.uid : undefined;
    const ttl = await ttlEvent(h, due, ttlKind, {
      verb: input.event.verb,
      namespace: input.namespace,
      name: input.name,
      ...(eventUid ? { uid: eventUid } : {}),
    });
    // A kind both families name (a Job a ttl rule names too): each decides, both are said.
    if (!objectsKind || GROUPS[kind as ObjectKind] !== groupOf(apiVersion) || !ruledKinds(parts).includes(kind as ObjectKind)) return { object, ...ttl };
    const objects = await objectsEvent(input, parts, object);
    return { ...objects, ttl, failures: sumFailures(objects.failures, ttl.failures) };
  },
});
