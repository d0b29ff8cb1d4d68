// The admission port: what a removal asks before the writer sends it, and tells once the API
// server answered (design "Where the limits live"; issue 34). Declared here, beside the one
// writer, so a family that removes pods is held to the limits by whatever implements it,
// without knowing what that is: the brakes do (brakes/io/admission.ts, over their shared
// ledger), and the dependency runs downward (the brakes import this file, never the reverse).
// Defrag's eviction asks it (defrag/io/step.ts), pod cleanup's removals too (cleanup/io/one-pod.ts,
// pass-brakes.ts, through cleanup/handle.ts `cleanupAdmission`): `ahead` and `pass` are theirs.
import type { Deferral, Subject, Ticket } from '../model/removal.js';

export type { Deferral as AdmissionDeferral, Subject as AdmissionSubject, Ticket as AdmissionTicket };

export interface AdmitOptions {
  /** The subjects the caller removes next, admitted with this one when that saves a ledger write (a pass's pods). */
  ahead?: () => readonly Subject[];
  /** The pass asking, which its own abort does not stop (a shard's pods kept before the line). */
  pass?: string;
}

/** Let through with a ticket to settle, or held back and why (a deferral is an answer, never an error). */
export type Admitted = { ticket: Ticket } | { deferred: Deferral };

export interface Admission {
  /** Before the removal is sent: whether it may be, charged to `subject`'s limits. A deferral has been counted and told. */
  admit(subject: Subject, opts?: AdmitOptions): Promise<Admitted>;
  /** After the API server answered (or the call failed): `charged` when the pod was removed or may have been. */
  settle(ticket: Ticket, charged: boolean): void;
}

/**
 * Whether a removal's answer spent a unit: the pod was removed, or may have been (a failure
 * after sending: a timeout, a 5xx; `undefined`, the call threw), or its evacuation was asked
 * for instead (the disruption is started, only slower, as the descheduler counts evictions in
 * the background). A refusal, a failed precondition, a 404, or an evacuation already under way
 * (charged when it was asked for) spends nothing. The one rule: every family settles with it.
 */
export const removalCharged = (r: { outcome: string } | undefined): boolean =>
  r === undefined || r.outcome === 'deleted' || r.outcome === 'evicted' || r.outcome === 'evacuation-requested' || r.outcome === 'failed';
