// One pass of cleanup beyond pods: read what the rules name, decide on what is stored, then for
// each decision in a delete rule, in the plan's order with up to SWEEP_CONCURRENCY in flight (as
// the pods' pass), ask the admission port (the brakes, charged per kind), act (io/act.ts: a Job
// deleted as it was read, a claim or a Workload read and checked again; every delete tied to uid
// and resourceVersion; the writer settles the ticket on the API server's answer, and a ticket no
// delete was sent with is given back); an Event per object removed, or, many in a namespace, one that counts them
// (the writer's series). A report rule's decision is reported, never
// admitted nor acted on. Every path runs this: the sweep, invoke, the CLI, and the event path
// restricted to the one object its event named (`only`). Each result goes out as a CloudEvent
// (notify/objects.ts); its Reports are the caller's, written after the pass (objects/reports).
import { unsent, type Admission } from '../../kube/admission.js';
import { objectDecided } from '../../notify/objects.js';
import type { ObjectKind, ObjectRule } from '../../policy/objects-schema.js';
import { gvkName, type GroupVersionKind, type TtlRule } from '../../policy/ttl-schema.js';
import { observeObject } from '../../metrics/observe.js';
import { inOrder, inTurn } from '../../pool/in-order.js';
import { decideObjects } from '../core/decide.js';
import type { ObjectDecision, ObjectEligible, ObjectKept, ObjectPlan, StoredObject } from '../core/model.js';
import type { ObjectsHandle } from '../handle.js';
import { actOnObject, type ObjectResult } from './act.js';
import { readObjects } from './read.js';
import { readAround } from './read-one.js';
import { actOnTtl } from './ttl-act.js';
import { planTtl } from './ttl-plan.js';
import type { ServedKind } from './ttl-read.js';

export type ObjectsOrigin = 'sweep' | 'invoke' | 'cli' | 'event' | 'due';

export interface ObjectsPassOptions {
  origin: ObjectsOrigin;
  /** Plan through the API server's dry run (and a Brakes that writes nothing). */
  dryRun: boolean;
  /** Only these namespaces (invoke's and the CLI's `namespaces`). */
  namespaces?: readonly string[];
  /**
   * The one object an event named: only its decision is acted on (the rest of the read is its
   * context). With its `name` and `readNamespace`, it is read first, and its namespace only when
   * an owner rule could group it with others (io/read-one.ts).
   */
  only?: { kind: ObjectKind; uid: string; name?: string };
  /**
   * The one object of a kind a ttl rule names that an event (or a due entry) named: only the ttl
   * rules naming its kind run, on that object read by name as stored (the event is only a hint),
   * and only its decision is acted on; `uid`, when the event carried one, ties it to that object
   * (one recreated under the name is not it). The objects rules do not run.
   */
  ttlOne?: { gvk: GroupVersionKind; namespace?: string; name: string; uid?: string };
  /** The rules to apply; default the configured policy's. */
  rules?: readonly ObjectRule[];
  /** The ttl rules to apply (TTL on any kind); default the configured policy's. */
  ttlRules?: readonly TtlRule[];
  /** No delete is started after this (epoch ms): the target's time budget. The rest is the next pass's, said in `notStarted`. */
  until?: number;
  /**
   * Read this namespace alone (an event's, a due timer's): every owner rule is namespaced, so its
   * object is decided on the context a full read gives it. With `only.name`, the object is read
   * first and this namespace only when a controller owns it (io/read-one.ts).
   */
  readNamespace?: string;
}

export interface ObjectsPassSummary {
  rules: number;
  /** Objects the rules' kinds listed (in the namespaces asked for). */
  considered: number;
  /** What was decided and what came of it: reported, deleted, deferred by a brake, kept on the re-read, ... */
  results: ObjectResult[];
  kept: ObjectKept[];
  /** Matching objects that time alone brings in, and when (the event path arms a timer for its own). */
  eligible: ObjectEligible[];
  /** Kinds a rule names that the cluster does not serve (Workload without Kueue). */
  notServed: ObjectKind[];
  /** Kinds a ttl rule names that could not be read (not served, not listable), and why: the rest were. */
  unavailable?: { kind: string; why: string }[];
  failures: { transient: number; refused: number };
  /** Decisions not started because the time budget ran out (`until`): the next pass decides them again. */
  notStarted?: number;
}

const inScope = (o: Pick<StoredObject, 'namespace'>, namespaces: readonly string[] | undefined): boolean =>
  namespaces === undefined || namespaces.includes(o.namespace);

/** The decision's subject for the brakes: its kind, namespace and controller owner (the Workload's owner is what goes). */
function subjectOf(d: ObjectDecision) {
  const owner = d.target.uid === d.uid ? undefined : `${d.namespace}/${d.target.kind}/${d.target.name}`;
  return { kind: d.kind, namespace: d.namespace, ...(owner ? { owner } : {}) };
}

/** What a pass acts with: the objects rules, and the kinds the ttl rules read (how each is served). */
interface Acting {
  rules: readonly ObjectRule[];
  served: ReadonlyMap<string, ServedKind>;
}

async function deleteAdmitted(h: ObjectsHandle, admission: Admission, acting: Acting, d: ObjectDecision, dryRun: boolean): Promise<ObjectResult> {
  const taken = await admission.admit(subjectOf(d));
  if ('deferred' in taken) return { decision: d, outcome: 'deferred', dryRun, message: taken.deferred.why };
  try {
    const writer = h.writer({ dryRun });
    // A ttl rule's decision carries its propagation; an objects rule's is acted on by its kind.
    return d.propagationPolicy
      ? await actOnTtl(writer, acting.served.get(`${d.apiVersion}/${d.kind}`), d, taken.ticket)
      : await actOnObject({ reader: h.reader, writer, rules: acting.rules, now: () => h.now() }, d, taken.ticket);
  } finally {
    // Kept or gone on the re-read, or a read that failed: no delete was sent, nothing spent (a no-op once the writer settled it).
    unsent(taken.ticket);
  }
}

/**
 * The Event on what was removed (the Workload's owner for a Workload): who removed it and by
 * which rule. Bounded as the pods' removals outside a pass are (the writer's series): the first
 * of its namespace, kind and rule's window has its own, the rest are counted in one Event.
 */
async function tell(h: ObjectsHandle, r: ObjectResult, dryRun: boolean): Promise<void> {
  if (r.outcome !== 'deleted' || dryRun) return;
  const t = r.decision.target;
  await h
    .writer({ dryRun })
    .recordObjectRemoved(
      { apiVersion: t.apiVersion, kind: t.kind, namespace: t.namespace, name: t.name, uid: t.uid },
      { reason: 'Deleted', action: 'Delete', type: 'Normal', note: `kube-tidy rule ${r.decision.rule}: ${r.decision.reason}` },
      `rule ${r.decision.rule}`,
    );
}

/**
 * The decisions carried out in the plan's order (oldest condition first), up to the handle's
 * concurrency in flight, as the pods' pass writes (pool/in-order.ts): each delete admitted
 * first, none started once `until` has passed. Each result's CloudEvent goes out in the plan's
 * order, as soon as every one before it is done; its Event as it ends.
 */
async function actInOrder(h: ObjectsHandle, acting: Acting, decided: readonly ObjectDecision[], o: ObjectsPassOptions) {
  const admission = h.admission({ dryRun: o.dryRun });
  // Its CloudEvent, whatever the outcome (a report rule's included): queued in the outbox, never awaited.
  const decidedInTurn = inTurn<ObjectResult>((r) => objectDecided(h.notifier, r, o.origin));
  const overdue = () => o.until !== undefined && h.now() >= o.until;
  const acted = await inOrder(decided, h.settings.concurrency, overdue, async (d, i) => {
    const r = d.mode === 'report' ? { decision: d, outcome: 'reported' as const, dryRun: o.dryRun } : await deleteAdmitted(h, admission, acting, d, o.dryRun);
    observeObject(h.metrics, { kind: d.kind, rule: d.rule, mode: d.mode, outcome: r.outcome, namespace: d.namespace, dryRun: o.dryRun });
    decidedInTurn(i, r);
    await tell(h, r, o.dryRun);
    return r;
  });
  // Started in order: the first `started` are done, the rest never began.
  return { results: acted.results.slice(0, acted.started) as ObjectResult[], notStarted: decided.length - acted.started };
}

/** The objects rules' read and plan (none without rules): an event's one object, one namespace, or every one. */
async function planObjects(h: ObjectsHandle, rules: readonly ObjectRule[], o: ObjectsPassOptions) {
  if (rules.length === 0) return { plan: { decisions: [], kept: [], eligible: [] } as ObjectPlan, notServed: [] as ObjectKind[], considered: 0 };
  const one = o.only?.name !== undefined && o.readNamespace !== undefined ? { kind: o.only.kind, namespace: o.readNamespace, name: o.only.name } : undefined;
  const read = one
    ? await readAround(h.reader, rules, one)
    : await readObjects(h.reader, rules, o.readNamespace === undefined ? {} : { namespace: o.readNamespace });
  if (read.notServed.length)
    h.log.warn(
      { kinds: read.notServed, origin: o.origin },
      'objects: a rule names a kind this cluster does not serve (Workload: is Kueue installed?); those rules read nothing',
    );
  const objects = read.objects.filter((x) => inScope(x, o.namespaces));
  return { plan: decideObjects(rules, objects, read.ctx, h.now()), notServed: read.notServed, considered: objects.length };
}

/** A protected namespace is never touched (the writer refuses it too): what a rule selected there is kept, and said. */
function shield(h: ObjectsHandle, plan: ObjectPlan): void {
  const guarded = new Set(h.settings.protectedNamespaces);
  const shielded = plan.decisions.filter((d) => guarded.has(d.namespace));
  plan.decisions = plan.decisions.filter((d) => !guarded.has(d.namespace));
  plan.eligible = plan.eligible.filter((d) => !guarded.has(d.namespace));
  plan.kept.push(
    ...shielded.map(({ kind, namespace, name, uid, resourceVersion, rule }) => ({
      kind,
      namespace,
      name,
      uid,
      resourceVersion,
      rule,
      reason: `in a protected namespace (${h.settings.protectedNamespacesFrom ?? 'PROTECTED_NAMESPACES'})`,
    })),
  );
}

export async function runObjectsPass(h: ObjectsHandle, o: ObjectsPassOptions): Promise<ObjectsPassSummary> {
  const one = o.ttlOne;
  const rules = one ? [] : (o.rules ?? h.policy().objects ?? []);
  // An objects rule's event (`only`) runs the objects rules; a ttl kind's (`ttlOne`) the ttl rules naming its kind.
  const ttlRules = o.only ? [] : (o.ttlRules ?? h.policy().ttl ?? []).filter((r) => !one || r.kinds.some((k) => gvkName(k) === gvkName(one.gvk)));
  const total = rules.length + ttlRules.length;
  const empty: ObjectsPassSummary = { rules: total, considered: 0, results: [], kept: [], eligible: [], notServed: [], failures: { transient: 0, refused: 0 } };
  if (total === 0) return empty;
  const objects = await planObjects(h, rules, o);
  const ttl = ttlRules.length ? await planTtl(h, ttlRules, { ...o, ...(one ? { one } : {}) }) : undefined;
  const plan: ObjectPlan = {
    decisions: [...objects.plan.decisions, ...(ttl?.plan.decisions ?? [])],
    kept: [...objects.plan.kept, ...(ttl?.plan.kept ?? [])],
    eligible: [...objects.plan.eligible, ...(ttl?.plan.eligible ?? [])],
  };
  shield(h, plan);
  const mine = <T extends { kind: string; uid: string }>(x: T) =>
    one ? x.kind === one.gvk.kind && (one.uid === undefined || x.uid === one.uid) : o.only === undefined || (x.kind === o.only.kind && x.uid === o.only.uid);
  const acting = { rules, served: ttl?.served ?? new Map<string, ServedKind>() };
  const { results, notStarted } = await actInOrder(h, acting, plan.decisions.filter(mine), o);
  return {
    rules: total,
    considered: objects.considered + (ttl?.considered ?? 0),
    results,
    kept: plan.kept.filter(mine),
    eligible: plan.eligible.filter(mine),
    notServed: objects.notServed,
    ...(ttl?.unavailable.length ? { unavailable: ttl.unavailable } : {}),
    ...(notStarted ? { notStarted } : {}),
    failures: {
      transient: results.filter((r) => r.outcome === 'failed').length,
      refused: results.filter((r) => r.outcome === 'refused').length,
    },
  };
}
