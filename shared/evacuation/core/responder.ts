// kube-tidy as an eviction responder (KEP-4563): a pod that names `kube-tidy.dev/kubevirt` in
// spec.evictionResponders is live-migrated by kube-tidy when the Eviction for it makes that
// responder Active. Pure: the Eviction, the pod, the migration and `now` in, one step out. All
// state is in the cluster (the Eviction's status, the migration named after the Eviction), so
// any instance continues after a crash. The rules quoted are from k8s.io/api@v0.37.2
// lifecycle/v1alpha1/types.go (TargetResponder.state, ResponderStatus). `answer` gives the
// step as the effects that carry it out (core/effects.ts), which io/effects.ts applies.
import type { Effect } from './effects.js';
import type { Eviction, ResponderStatus } from './eviction-request.js';
import { EVICTION_REQUESTER_PREFIX as PREFIX, EVICTION_UID_LABEL } from '../../model/keys.js';

/** The responder names kube-tidy answers to. */
export const KUBEVIRT_RESPONDER = `${PREFIX}kubevirt`;

export interface ResponderSettings {
  /** Heartbeat at least this often while Active (types.go: the deadline is 20 minutes). */
  heartbeatMs: number;
  /** ...and never more often than this (types.go: "avoid heartbeats more frequent than 20 seconds"). */
  minHeartbeatMs: number;
}

export const RESPONDER_DEFAULTS: ResponderSettings = { heartbeatMs: 60_000, minHeartbeatMs: 20_000 };

/** Named after the Eviction, so every instance (or a successor after a crash) creates the same one. */
export function responderMigrationName(evictionUid: string): string {
  return `kube-tidy-eviction-${evictionUid}`;
}

export interface ResponderObservation {
  eviction: Eviction;
  name: string;
  /** The target pod as stored (undefined: gone, or another pod under its name). */
  pod?: { vmi?: string };
  /** The migration this responder made for the Eviction, if any. */
  migration?: { phase: string };
  now: number;
}

export type ResponderStep =
  | { do: 'none'; why: string }
  /** Create the migration (409 = made already), and report it. */
  | { do: 'start'; migration: string; message: string; why: string }
  /** Write heartbeatTime = now and the message into status.responders[name]. */
  | { do: 'heartbeat'; message: string; why: string }
  /** Write completionTime (and heartbeat) = now with the message: the controller moves on. */
  | { do: 'complete'; message: string; why: string }
  /** Delete the migration: the eviction was canceled. */
  | { do: 'abort'; migration: string; why: string };

const TERMINAL: ReadonlySet<string> = new Set(['Succeeded', 'Failed']);
const ms = (t: string | null | undefined) => (t ? Date.parse(t) : Number.NaN);

export function mine(e: Eviction, name: string): { state?: string; status?: ResponderStatus } {
  return { state: e.status?.targetResponders?.find((r) => r.name === name)?.state, status: e.status?.responders?.find((r) => r.name === name) };
}

export function respond(o: ResponderObservation, s: ResponderSettings): ResponderStep {
  const { state, status } = mine(o.eviction, o.name);
  const migration = responderMigrationName(o.eviction.metadata.uid);
  const m = o.migration;
  if (!state) return { do: 'none', why: `${o.name} is not a responder of this Eviction` };
  // "Canceled ... Active responders are expected to cancel the eviction."
  if (state === 'Canceled')
    return m && !TERMINAL.has(m.phase)
      ? { do: 'abort', migration, why: 'the Eviction was canceled: aborting the migration' }
      : { do: 'none', why: 'canceled; nothing running' };
  // "Inactive means that the responder should not yet process this eviction request."
  // Interrupted, Completed: "should not take any action".
  if (state !== 'Active') return { do: 'none', why: `responder state ${state}` };
  if (status?.completionTime) return { do: 'none', why: 'completed; waiting for the controller to move on' };
  // Completion "fully or partially": whatever happened, say it and hand over.
  // KubeVirt deletes the source pod once the VM runs on the target: a success first.
  if (m?.phase === 'Succeeded') return { do: 'complete', message: `live migration ${migration} succeeded`, why: 'the migration succeeded' };
  if (!o.pod) return { do: 'complete', message: 'the pod is gone', why: 'the target pod is gone' };
  if (!o.pod.vmi) return { do: 'complete', message: 'not a KubeVirt launcher pod: nothing to migrate', why: 'not a launcher pod' };
  if (!m) return { do: 'start', migration, message: `live migration ${migration} started`, why: 'Active: starting the live migration' };
  if (m.phase === 'Failed') return { do: 'complete', message: `live migration ${migration} failed; passing the eviction on`, why: 'the migration failed' };
  const message = `live migration ${migration} is ${m.phase || 'Pending'}`;
  const since = o.now - ms(status?.heartbeatTime ?? status?.startTime);
  // A heartbeat is due after heartbeatMs; a new phase is reported sooner, but not more often than minHeartbeatMs.
  if (Number.isNaN(since) || since >= s.heartbeatMs || (message !== status?.message && since >= s.minHeartbeatMs))
    return { do: 'heartbeat', message, why: 'in progress: heartbeat' };
  return { do: 'none', why: `${message}; last heartbeat ${Math.round(since / 1000)} s ago` };
}

/** status.responders with this responder's entry changed as the step says (others as read). */
export function respondersAfter(e: Eviction, name: string, step: Extract<ResponderStep, { message: string }>, now: number): ResponderStatus[] {
  const at = new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');
  return (e.status?.responders ?? []).map((r) =>
    r.name === name ? { ...r, heartbeatTime: at, message: step.message, ...(step.do === 'complete' ? { completionTime: at } : {}) } : r,
  );
}

// The label on a migration the responder made (which Eviction it is for) is a key kube-tidy owns.
export { EVICTION_UID_LABEL };

/**
 * The step as effects: the migration started or aborted, then this responder's status written
 * to the Eviction as read (409: read it again and answer again), then an Event on the pod for a
 * start or a completion, then the reply.
 */
export function answer(o: ResponderObservation, s: ResponderSettings): Effect[] {
  const step = respond(o, s);
  const reply: Effect = { do: 'reply', step: step.do, why: step.why };
  if (step.do === 'none') return [reply];
  if (step.do === 'abort') return [{ do: 'delete-migration', name: step.migration }, reply];
  return [
    ...(step.do === 'start'
      ? [{ do: 'create-migration', name: step.migration, vmi: o.pod!.vmi!, labels: { [EVICTION_UID_LABEL]: o.eviction.metadata.uid } } as const]
      : []),
    { do: 'write-responders', responders: respondersAfter(o.eviction, o.name, step, o.now) },
    ...(o.pod && step.do !== 'heartbeat'
      ? [
          {
            do: 'event',
            reason: step.do === 'start' ? 'EvictionResponderStarted' : 'EvictionResponderCompleted',
            type: 'Normal',
            note: step.message,
          } as const,
        ]
      : []),
    reply,
  ];
}
