// Cleanup beyond pods' decisions as events (shared/objects/io/pass.ts calls it as each result is
// known): one dev.kube-tidy.object.decided.v1 per object decision, whatever its outcome, a report
// rule's `reported` included (a report rule's events are its product, with its Reports). Through
// the outbox like every hook: emitting never waits and never throws, so no removal waits for it.
// The result's shape is restated here rather than imported: notify stands below the families.
import { objectDecisionEvent, objectSubject } from './build.js';
import type { Notifier } from './notifier.js';
import type { ObjectDecisionData, ObjectOrigin, ObjectOutcomeName } from './types.js';

/** An object result as the pass has it (shared/objects/io/act.ts ObjectResult): its decision's `since` in epoch ms. */
export interface ObjectResultSaid {
  decision: Pick<ObjectDecisionData, 'kind' | 'namespace' | 'name' | 'uid' | 'rule' | 'mode' | 'condition' | 'reason' | 'target'> & { since: number };
  outcome: ObjectOutcomeName;
  dryRun: boolean;
  message?: string;
}

/** The event's data: only the schema's fields, whatever more the result carries. */
export function objectDecision(r: ObjectResultSaid, origin: ObjectOrigin): ObjectDecisionData {
  const d = r.decision;
  const t = d.target;
  return {
    kind: d.kind,
    namespace: d.namespace,
    name: d.name,
    uid: d.uid,
    rule: d.rule,
    mode: d.mode,
    outcome: r.outcome,
    condition: d.condition,
    since: new Date(d.since).toISOString(),
    reason: d.reason,
    target: { apiVersion: t.apiVersion, kind: t.kind, namespace: t.namespace, name: t.name, uid: t.uid },
    dryRun: r.dryRun,
    ...(r.message ? { message: r.message } : {}),
    origin,
  };
}

/** One object decision, as its own event (ordered after any earlier event about the same object). */
export function objectDecided(n: Notifier, r: ObjectResultSaid, origin: ObjectOrigin): void {
  if (!n.on) return;
  try {
    n.emit(objectDecisionEvent(n.stamp(), objectDecision(r, origin)), { keys: [objectSubject(r.decision)] });
  } catch {
    // A decision the pass carries no readable time for (never one the core made): a notification is never the removal's problem.
  }
}
