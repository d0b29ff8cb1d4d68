// The one interpreter: a decision's effects (core/effects.ts), applied in order. The one rule
// for conflicts: a write tied to the object as read (the pod's or the Eviction's
// resourceVersion) that meets 409 stops the list, and the caller reads the object again and
// decides again; every other write is idempotent (AlreadyExists, NotFound: done). The slot store
// keeps its own conditional writes (slot-store.ts, on the ConfigMap store). Every write goes
// through the ClusterWriter; a start goes with a ticket, which the writer settles: the admission
// port's when the `admit` effect asked it, else an unlimited one that says why (`uncharged`).
import { storedPodId } from '../../kube/from-client.js';
import type { Stored } from '../../model/identity.js';
import type { Pod } from '../../model/objects.js';
import { unlimited, unsent, type RemovalTicket } from '../../kube/admission.js';
import { subjectOf } from '../../model/removal.js';
import type { Driven, Effect, Info, KubevirtMark, PassOutcome, ResponderAction } from '../core/effects.js';
import type { Eviction } from '../core/eviction-request.js';
import { requesterName } from '../../model/keys.js';
import { readState } from '../core/annotations.js';
import type { Slot } from '../core/limits.js';
import { withAnnotations } from '../core/pod-view.js';
import type { EvacuationDeps } from './deps.js';
import { deleteEvictionRequest, EVICTIONS, requestEviction, withdrawEvictionRequest } from './eviction-request.js';
import { createMigration, deleteMigration, evacuationMark } from './kubevirt.js';
import { evacuationEndedGone, evacuationWritten } from '../../notify/families.js';

/** What the effects act on: one pod (namespace/name), as read, and for the responder the Eviction as read. */
export interface Target {
  namespace: string;
  name: string;
  pod?: Stored<Pod>;
  eviction?: Eviction;
}

export type Applied =
  /** Read again and decide again; `carried`: a dry run's own write, which the API server did not keep. */
  | { end: 'again'; carried?: Stored<Pod> }
  | { end: 'answer'; outcome: PassOutcome; why: string; info: Info }
  | { end: 'reply'; step: ResponderAction; why: string };

const STARTED = /Eviction triggered evacuation|Evacuation in progress/;

/** Which evacuation a released slot ends: its attempt from the slot, or from the pod when a slot taken before slots kept it. */
function endedOf(slot: Slot, pod: Stored<Pod> | undefined): { uid: string; attempt?: number } {
  const run = pod && readState(pod.metadata.annotations);
  const attempt = slot.attempt ?? (run && run.state !== 'Idle' ? run.attempt : undefined);
  return { uid: slot.uid, ...(attempt === undefined ? {} : { attempt }) };
}

/** The pod of the pass: every effect that writes to it needs it. */
function podOf(t: Target): Stored<Pod> {
  if (!t.pod) throw new Error(`unreachable: an effect on pod ${t.namespace}/${t.name}, which was not read`);
  return t.pod;
}

async function evict(d: EvacuationDeps, pod: Stored<Pod>, ticket: RemovalTicket): Promise<Driven> {
  const r = await d.writer.evictPodForMigration(storedPodId(pod), ticket);
  if (r.outcome === 'evicted')
    return { outcome: 'started', why: d.writer.dryRun ? 'evicted through the Eviction API (admitted in the dry run)' : 'evicted: the pod is terminating' };
  if (r.outcome === 'blocked' && STARTED.test(r.message ?? '')) return { outcome: 'started', why: r.message ?? 'evacuation started' };
  if (r.outcome === 'blocked') return { outcome: 'blocked', why: `eviction refused, retried until the deadline: ${r.message}` };
  return { outcome: 'waiting', why: `the pod is ${r.outcome}` };
}

async function mark(d: EvacuationDeps, namespace: string, vmi: string): Promise<KubevirtMark> {
  try {
    const node = await evacuationMark(d.custom, namespace, vmi);
    return node ? { node } : {};
  } catch (e) {
    d.log.warn({ vmi: `${namespace}/${vmi}`, err: (e as Error).message }, 'could not read the VMI to see whether KubeVirt still evacuates it');
    return { unknown: (e as Error).message };
  }
}

/**
 * Why a start is sent without the port's ticket: evacuation is not charged (the default: an
 * explicit request is a decision already made, paced by its slots), or it was charged once
 * already: when its first start was admitted (a start driven again asks nothing again), or by
 * the family that asked for it (core/annotations.ts `chargedWhenRequested`).
 */
const uncharged = (d: EvacuationDeps): string =>
  d.admission
    ? 'evacuation: charged once already (its first start, or the pod cleanup or defrag removal that asked for it)'
    : 'evacuation: not charged to the budgets (EVACUATION_CHARGE_BUDGETS=false), paced by its slots';

/** One of the start effects: the request, the migration or the eviction that empties the pod, sent with its ticket. */
function startBy(
  d: EvacuationDeps,
  t: Target,
  e: Extract<Effect, { do: 'request-eviction' | 'create-migration' | 'evict' }>,
  ticket: RemovalTicket,
): Promise<Driven> {
  const { namespace } = t;
  switch (e.do) {
    case 'request-eviction': {
      // The attempt keeps the path it started on, whatever discovery says now.
      const requester = d.evictionRequests?.requester ?? requesterName('evacuation');
      return requestEviction(d, { namespace, name: e.name, pod: { name: podOf(t).metadata.name!, uid: e.uid }, requester }, ticket).then((r) => {
        const how = r === 'created' ? 'created' : r === 'renewed' ? 'asked again' : 'already there';
        return { outcome: 'started', why: `EvictionRequest ${e.name} (requester ${requester}) ${how}` };
      });
    }
    case 'create-migration':
      return createMigration(d.writer, namespace, e.name, e.vmi, e.labels, ticket).then((r) => ({
        outcome: 'started',
        why: `migration ${e.name} ${r === 'created' ? 'created' : 'already there'}`,
      }));
    case 'evict':
      return evict(d, podOf(t), ticket);
  }
}

/** The pass's answer: as the effect says, or as the start effect before it went; an end whose slot told it says so. */
function answerOf(d: EvacuationDeps, t: Target, e: Extract<Effect, { do: 'answer' }>, driven: Driven | undefined, endedGone: Slot | undefined): Applied {
  const info: Info = { ...(e.attempt !== undefined ? { attempt: e.attempt } : {}), ...(e.migration !== undefined ? { migration: e.migration } : {}) };
  if ('outcome' in e) {
    if (endedGone)
      evacuationEndedGone(d.notifier, {
        namespace: t.namespace,
        name: t.name,
        ...endedOf(endedGone, t.pod),
        outcome: e.outcome,
        why: e.why,
        dryRun: d.writer.dryRun,
      });
    return { end: 'answer', outcome: e.outcome, why: e.why, info };
  }
  if (!driven) throw new Error('unreachable: a driven answer without a start effect before it');
  return { end: 'answer', outcome: driven.outcome, why: e.why ? `${e.why}; ${driven.why}` : driven.why, info };
}

/** What one list's effects have found so far: the start's answer and ticket, the end a slot told, a dry run's own write. */
interface Run {
  driven?: Driven;
  carried?: Stored<Pod>;
  endedGone?: Slot;
  /** Whether a state write on the pod told this list's change (evacuationWritten). */
  told: boolean;
  /** The start's ticket from the admission port: settled by the writer when the start is sent, given back otherwise. */
  admitted?: RemovalTicket;
}

/** Merges the annotations into the pod as read: 'again' when the list stops there (409, or the pod gone when that means decide again). */
async function annotate(d: EvacuationDeps, t: Target, e: Extract<Effect, { do: 'annotate' }>, run: Run): Promise<'again' | undefined> {
  const pod = podOf(t);
  const w = await d.writer.annotatePod(storedPodId(pod), e.set);
  if (w.outcome === 'conflict' || (w.outcome === 'gone' && e.gone === 'decide-again')) return 'again';
  if (w.outcome !== 'written') return undefined;
  if (d.writer.dryRun) run.carried = withAnnotations(pod, e.set);
  evacuationWritten(d.notifier, {
    namespace: t.namespace,
    name: t.name,
    uid: pod.metadata.uid!,
    before: pod.metadata.annotations,
    set: e.set,
    dryRun: d.writer.dryRun,
  });
  run.told = true;
  return undefined;
}

/** Writes status.responders of the Eviction as read: an answer when the list stops there. */
async function writeResponders(d: EvacuationDeps, t: Target, e: Extract<Effect, { do: 'write-responders' }>): Promise<Applied | undefined> {
  const ev = t.eviction!;
  const id = { namespace: t.namespace, name: ev.metadata.name, ...(ev.metadata.resourceVersion ? { resourceVersion: ev.metadata.resourceVersion } : {}) };
  const w = await d.writer.patchObject(EVICTIONS, id, { status: { responders: e.responders } }, { status: true });
  if (w === 'conflict') return { end: 'again' }; // someone else wrote: look again
  if (w === 'gone') return { end: 'reply', step: 'none', why: 'the Eviction is gone' };
  return undefined;
}

export async function apply(d: EvacuationDeps, t: Target, effects: readonly Effect[]): Promise<Applied> {
  const run: Run = { told: false };
  try {
    return await applyAll(d, t, [...effects], run);
  } finally {
    // Not sent (the slot refused, the state write met a newer pod): nothing spent. Sent: the writer settled it, and this is a no-op.
    if (run.admitted) unsent(run.admitted);
  }
}

async function applyAll(d: EvacuationDeps, t: Target, queue: Effect[], run: Run): Promise<Applied> {
  const { namespace } = t;
  for (let e = queue.shift(); e; e = queue.shift()) {
    switch (e.do) {
      case 'take-slot': {
        const admitted = await d.slotStore.acquire({ uid: e.uid, pod: `${namespace}/${t.name}`, node: e.node, at: e.at, attempt: e.attempt }, d.config.limits);
        if (!admitted.ok) return { end: 'answer', outcome: 'queued', why: admitted.why, info: {} };
        break;
      }
      case 'annotate':
        if ((await annotate(d, t, e, run)) === 'again') return { end: 'again' };
        break;
      case 'admit': {
        // Asked only when charged (settings.chargeBudgets), and then the parts give the port
        // (index.ts); deps built without one (a test's) let the start through.
        if (!d.admission) break;
        const a = await d.admission.admit(subjectOf(podOf(t)));
        if ('deferred' in a) return { end: 'answer', outcome: 'deferred', why: a.deferred.why, info: { deferred: a.deferred } };
        run.admitted = a.ticket;
        break;
      }
      case 'request-eviction':
      case 'create-migration':
      case 'evict':
        run.driven = await startBy(d, t, e, run.admitted ?? unlimited(uncharged(d)));
        break;
      case 'withdraw-request':
        await withdrawEvictionRequest(d.writer, namespace, e.name);
        break;
      case 'delete-request':
        await deleteEvictionRequest(d.writer, namespace, e.name);
        break;
      case 'delete-migration':
        await deleteMigration(d.writer, namespace, e.name);
        break;
      case 'release-slot': {
        const { uid, byPod } = e;
        const key = `${namespace}/${t.name}`;
        const freed = await d.slotStore.release((s) => (byPod && s.pod === key) || (uid !== undefined && s.uid === uid));
        // No state written on the pod (gone, terminating, or gone before the write: a pass that
        // sees it terminating writes nothing): the slot given back is the end, said once.
        if (e.ends && !run.told) run.endedGone = freed[0];
        break;
      }
      case 'event':
        await d.writer.recordEvent(
          { namespace, name: podOf(t).metadata.name!, uid: podOf(t).metadata.uid! },
          { reason: e.reason, action: 'Evacuate', type: e.type, note: e.note },
        );
        break;
      case 'look':
        queue.unshift(...e.then(await mark(d, namespace, e.vmi)));
        break;
      case 'write-responders': {
        const stop = await writeResponders(d, t, e);
        if (stop) return stop;
        break;
      }
      case 'decide-again':
        return { end: 'again', ...(run.carried ? { carried: run.carried } : {}) };
      case 'answer':
        return answerOf(d, t, e, run.driven, run.endedGone);
      case 'reply':
        return { end: 'reply', step: e.step, why: e.why };
      default: {
        // A new effect is a new case here: the compiler says so.
        const unknown: never = e;
        throw new Error(`unreachable: effect ${JSON.stringify(unknown)}`);
      }
    }
  }
  throw new Error('unreachable: effects without an answer');
}
