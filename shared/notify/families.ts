// The other families' decisions as events, one hook each, called where the decision's outcome is
// known: a MultiKueue cascade per worker (multikueue/io/cascade.ts), an orphan the sweep acted
// on or reported (multikueue/io/sweep.ts), an evacuation's state written on its pod
// (evacuation/io/effects.ts), a defragmentation step (defrag/io/step.ts), an orphan sweep's summary.
import { EVACUATION_ANNOTATIONS as ANNOTATIONS } from '../model/keys.js';
import { cascadeEvent, defragEvent, evacuationEvent, orphanEvent, passCompletedEvent } from './build.js';
import type { Notifier } from './notifier.js';
import type { CascadeData, DefragStepData, OrphanData, PassSummaryData } from './types.js';

/** The resource's plural for a subject: a Pod's `pods`, a kind's lower-cased plural otherwise. */
const pluralOf = (kind: string, plural?: string) => plural ?? `${kind.toLowerCase()}s`;

export function cascaded(n: Notifier, c: CascadeData, plural: string): void {
  if (!n.on) return;
  n.emit(cascadeEvent(n.stamp(), c, plural), { keys: [`${c.worker}/${c.namespace}/${plural}/${c.name}`] });
}

/** One orphan as the sweep left it (`o` may carry more, as the sweep's own decision does: only the schema's fields are sent). */
export function orphanDone(n: Notifier, o: OrphanData, plural?: string): void {
  if (!n.on) return;
  const p = pluralOf(o.kind, plural);
  const data: OrphanData = {
    worker: o.worker,
    apiVersion: o.apiVersion,
    kind: o.kind,
    namespace: o.namespace,
    name: o.name,
    uid: o.uid,
    action: o.action,
    ...(o.result ? { result: o.result } : {}),
    ...(o.outsideBudgets ? { outsideBudgets: o.outsideBudgets } : {}),
    reason: o.reason,
    dryRun: o.dryRun,
  };
  n.emit(orphanEvent(n.stamp(), data, p), { keys: [`${o.worker}/${o.namespace}/${p}/${o.name}`] });
}

export function orphanSweepCompleted(n: Notifier, summary: Omit<PassSummaryData, 'kind'>): void {
  if (!n.on) return;
  n.emit(passCompletedEvent(n.stamp(), { ...summary, kind: 'orphan-sweep' }), { barrier: true });
}

/** A write of an evacuation's annotations (core/annotations.ts) on its pod. */
export interface StateWrite {
  namespace: string;
  name: string;
  uid: string;
  /** The pod's annotations as read. */
  before: Record<string, string> | undefined;
  /** What the write set (null: removed). */
  set: Record<string, string | null>;
  dryRun: boolean;
}

const KEYS = { state: ANNOTATIONS.state, attempt: ANNOTATIONS.attempt, result: ANNOTATIONS.result, retryAt: ANNOTATIONS.retryAt };

/** An evacuation's state written: an event when the state changed (Idle, Started, Backoff), nothing otherwise. */
export function evacuationWritten(n: Notifier, w: StateWrite): void {
  if (!n.on || !(KEYS.state in w.set)) return;
  const from = w.before?.[KEYS.state] || 'Idle';
  const to = w.set[KEYS.state] || 'Idle';
  if (from === to) return;
  const attempt = Number(w.set[KEYS.attempt] ?? w.before?.[KEYS.attempt]);
  const reason = w.set[KEYS.result] ?? (to === 'Backoff' && w.set[KEYS.retryAt] ? `next attempt at ${w.set[KEYS.retryAt]}` : undefined);
  n.emit(
    evacuationEvent(n.stamp(), {
      namespace: w.namespace,
      name: w.name,
      uid: w.uid,
      from,
      to,
      ...(Number.isInteger(attempt) && attempt > 0 ? { attempt } : {}),
      ...(reason ? { reason } : {}),
      dryRun: w.dryRun,
    }),
    { keys: [`namespaces/${w.namespace}/pods/${w.name}`] },
  );
}

/**
 * An evacuation that ended with its pod gone (the VM moved, the pod deleted): no state is
 * written on a pod that is gone, so the end is told when its slot is given back (once).
 */
export function evacuationEndedGone(
  n: Notifier,
  e: {
    namespace: string;
    name: string;
    uid: string;
    attempt?: number;
    outcome: string;
    why: string;
    dryRun: boolean;
  },
): void {
  if (!n.on) return;
  const outcome = e.outcome === 'timedout' ? 'TimedOut' : `${e.outcome.charAt(0).toUpperCase()}${e.outcome.slice(1)}`;
  n.emit(
    evacuationEvent(n.stamp(), {
      namespace: e.namespace,
      name: e.name,
      uid: e.uid,
      from: 'Started',
      to: 'Idle',
      ...(e.attempt ? { attempt: e.attempt } : {}),
      reason: `${outcome}: ${e.why}`,
      dryRun: e.dryRun,
    }),
    { keys: [`namespaces/${e.namespace}/pods/${e.name}`] },
  );
}

/** A defragmentation step, as its report says (the plan's moves only counted). */
export function defragStepped(
  n: Notifier,
  r: {
    outcome: string;
    move?: DefragStepData['move'] & object;
    verified?: DefragStepData['verified'];
    message?: string;
    nodesFreed?: number;
    plan?: { moves: unknown[] | number };
  },
  dryRun: boolean,
): void {
  if (!n.on) return;
  const m = r.move;
  const moves = r.plan?.moves;
  n.emit(
    defragEvent(n.stamp(), {
      outcome: r.outcome,
      dryRun,
      ...(m
        ? {
            move: {
              step: m.step,
              pod: { namespace: m.pod.namespace, name: m.pod.name, uid: m.pod.uid },
              from: m.from,
              to: m.to,
              frees: m.frees,
              reason: m.reason,
            },
          }
        : {}),
      ...(r.verified ? { verified: r.verified } : {}),
      ...(r.message ? { message: r.message } : {}),
      ...(r.nodesFreed ? { nodesFreed: r.nodesFreed } : {}),
      ...(moves === undefined ? {} : { movesLeft: Array.isArray(moves) ? moves.length : moves }),
    }),
    { barrier: true },
  );
}
