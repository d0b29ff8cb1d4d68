// Pure: what a decision asks to be done, as data, in the order it is to be done. The machine
// (decide.ts) and the responder (responder.ts) return lists of these; one interpreter
// (io/effects.ts) carries them out, with the one rule for conflicts: a write tied to an object
// as read (its resourceVersion) that meets 409 stops the list, and the object is read and
// decided on again. A new path adds an effect here and a case there, not a branch per step.
// Imported by the machine, the responder and the interpreter; it imports only a type.
import type { Deferral } from '../../model/removal.js';
import type { ResponderStatus } from './eviction-request.js';

export type Outcome = 'Succeeded' | 'Failed' | 'TimedOut' | 'Cancelled';

/** What one pass over a pod answers. */
export type PassOutcome = 'nothing-to-do' | 'waiting' | 'queued' | 'deferred' | 'started' | 'blocked' | 'backoff' | Lowercase<Outcome>;

/** What the responder did with one Eviction (core/responder.ts ResponderStep['do']). */
export type ResponderAction = 'none' | 'start' | 'heartbeat' | 'complete' | 'abort';

/** What the pass answers besides the outcome: the attempt and its migration, when there is one. */
export interface Info {
  attempt?: number;
  migration?: string;
  /** `deferred`: the budget that held the start back, and when it frees. */
  deferred?: Deferral;
}

/** What a start effect reports: how the pass went, and why (io/effects.ts says it). */
export interface Driven {
  outcome: PassOutcome;
  why: string;
}

/** VMI status.evacuationNodeName as read: the node, none (undefined), or why it could not be read. */
export type KubevirtMark = { node?: string } | { unknown: string };

export type Effect =
  // ---- the pod's evacuation (the pod is the one the pass read; its uid and resourceVersion tie every pod write to it)
  /**
   * Ask the admission port (kube/admission.ts) for the removal this evacuation's start makes,
   * when evacuation is charged to the policy's limits (EVACUATION_CHARGE_BUDGETS; otherwise let
   * through). Deferred: the pass answers `deferred` with the budget, nothing written (the pod
   * stays Requested). Admitted: the ticket goes with the start effect; the writer settles it on its answer.
   */
  | { do: 'admit' }
  /** Take a slot in the slot store within the limits (held already: fine). Refused: the pass answers `queued` with the slot store's reason. */
  | { do: 'take-slot'; uid: string; node: string; at: number; attempt: number }
  /**
   * Merge these annotations (null removes) into the pod as read. 409: read and decide again.
   * The pod gone: `gone` says whether to decide again or go on with the list.
   */
  | { do: 'annotate'; set: Record<string, string | null>; gone: 'decide-again' | 'go-on' }
  /** Start the attempt through its EvictionRequest (AlreadyExists: asked already; withdrawn: asked again). Reports Driven. */
  | { do: 'request-eviction'; name: string; uid: string }
  /** Create a migration of our own (AlreadyExists: fine). Reports Driven. */
  | { do: 'create-migration'; name: string; vmi: string; labels: Record<string, string> }
  /** Start the attempt through the Eviction API, tied to the pod's uid. Reports Driven. */
  | { do: 'evict' }
  /** intent: Withdrawn (already gone: fine). */
  | { do: 'withdraw-request'; name: string }
  /** Delete an EvictionRequest (deleting withdraws too; already gone: fine). */
  | { do: 'delete-request'; name: string }
  /** Delete a migration: how KubeVirt aborts one (already gone: fine). */
  | { do: 'delete-migration'; name: string }
  /**
   * Give back the slot held by this uid, and (`byPod`) any held under the pod's namespace/name.
   * `ends`: the evacuation ends here; when no state write on the pod said so (the pod gone,
   * terminating, or gone before the write), the slot given back is what tells the end, once.
   */
  | { do: 'release-slot'; uid?: string; byPod: boolean; ends?: true }
  /** An Event on the pod. */
  | { do: 'event'; reason: string; type: 'Normal' | 'Warning'; note: string }
  /** Read the VMI's evacuation mark now (after the effects before it), and go on with what `then` makes of it. */
  | { do: 'look'; at: 'kubevirt-mark'; vmi: string; then: (mark: KubevirtMark) => Effect[] }
  /** Read the pod again and decide again (a dry run carries its own annotate forward instead). */
  | { do: 'decide-again' }
  /** The pass's answer. `driven`: outcome and why from the start effect before it, `why` (if any) in front. */
  | ({ do: 'answer'; why: string } & Info & ({ outcome: PassOutcome } | { driven: true }))
  // ---- the responder (the Eviction is the one read; its resourceVersion ties the status write to it)
  /** Write status.responders of the Eviction as read. 409: read it and decide again; gone: answer that. */
  | { do: 'write-responders'; responders: ResponderStatus[] }
  /** The responder's answer. */
  | { do: 'reply'; step: ResponderAction; why: string };
