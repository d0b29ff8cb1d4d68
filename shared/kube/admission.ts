// The admission port: what a removal asks before the writer sends it (design "Where the limits
// live"; issue 34), and the ticket it answers with, which the one writer requires of every
// removal and settles itself on the API server's answer (issue 45): forgetting the budget does
// not compile, and no family settles. Declared here, beside the one writer, so a family that
// removes is held to the limits by whatever implements them, without knowing what that is: the
// brakes do (brakes/io/admission.ts, over their shared ledger, through `admissionPort`), and the
// dependency runs downward (the brakes import this file, never the reverse). A family that is
// deliberately outside the budgets (MultiKueue's worker cascade, evacuation when not charged)
// says so with `unlimited(reason)`, which the writer's answer carries.
import type { Deferral, Subject, Ticket } from '../model/removal.js';

export type { Deferral as AdmissionDeferral, Subject as AdmissionSubject };

export interface AdmitOptions {
  /** The subjects the caller removes next, admitted with this one when that saves a ledger write (a pass's pods). */
  ahead?: () => readonly Subject[];
  /** The pass asking, which its own abort does not stop (a shard's pods kept before the line). */
  pass?: string;
}

/** Let through with a ticket the writer settles, or held back and why (a deferral is an answer, never an error). */
export type Admitted = { ticket: RemovalTicket } | { deferred: Deferral };

export interface Admission {
  /** Before the removal is sent: whether it may be, charged to `subject`'s limits. A deferral has been counted and told. */
  admit(subject: Subject, opts?: AdmitOptions): Promise<Admitted>;
}

/** What implements the port (the brakes): a unit of every limit taken or a deferral, and the unit settled once. */
export interface AdmissionLedger {
  admit(subject: Subject, opts?: AdmitOptions): Promise<{ ticket: Ticket } | { deferred: Deferral }>;
  /** After the API server answered (or the call failed): `charged` when the object was removed or may have been. */
  settle(ticket: Ticket, charged: boolean): void;
}

/**
 * Whether a removal's answer spent a unit: the pod was removed, or may have been (a failure
 * after sending: a timeout, a 5xx; `undefined`, the call threw), or its evacuation was asked
 * for instead (the disruption is started, only slower, as the descheduler counts evictions in
 * the background). A refusal, a failed precondition, a 404, or an evacuation already under way
 * (charged when it was asked for) spends nothing. The one rule: the writer settles with it.
 */
export const removalCharged = (r: { outcome: string } | undefined): boolean =>
  r === undefined || r.outcome === 'deleted' || r.outcome === 'evicted' || r.outcome === 'evacuation-requested' || r.outcome === 'failed';

/**
 * The right to send one removal. Only the admission port (`admissionPort`) and `unlimited` make
 * one: the class's private field makes the type nominal, so nothing shaped like it type-checks
 * where the writer asks for one. Settled exactly once: the first settle tells the ledger, any
 * later one does nothing (a ticket cannot be charged twice).
 */
export class RemovalTicket {
  #settle: ((charged: boolean) => void) | undefined;

  private constructor(
    settle: (charged: boolean) => void,
    /** Why this removal is outside every budget; absent for a ticket the port admitted. */
    readonly unlimited?: string,
  ) {
    this.#settle = settle;
  }

  /** The port over what implements it: every ticket it admits settles `ledger`'s own ticket once. */
  static port(ledger: AdmissionLedger): Admission {
    return {
      async admit(subject, opts) {
        const taken = await ledger.admit(subject, opts);
        if ('deferred' in taken) return taken;
        return { ticket: new RemovalTicket((charged) => ledger.settle(taken.ticket, charged)) };
      },
    };
  }

  /** A removal deliberately outside the budgets, and why (said where the writer answers it). */
  static unlimited(reason: string): RemovalTicket {
    if (!reason.trim()) throw new Error('an unlimited removal says why it is outside the budgets');
    return new RemovalTicket(() => undefined, reason);
  }

  /** Settles `ticket` as `charged`, once: whether it was charged, or undefined when it was settled before. */
  static settle(ticket: RemovalTicket, charged: boolean): boolean | undefined {
    const settle = ticket.#settle;
    if (!settle) return undefined;
    ticket.#settle = undefined;
    settle(charged);
    return charged;
  }

  /** Whether the ticket was settled (spent on a write, or given back). */
  get settled(): boolean {
    return this.#settle === undefined;
  }
}

/** The admission port over what implements it (the brakes, a test's double). */
export const admissionPort = (ledger: AdmissionLedger): Admission => RemovalTicket.port(ledger);

/** A ticket for a removal deliberately outside the budgets: the reason is required, and the writer's answer carries it. */
export const unlimited = (reason: string): RemovalTicket => RemovalTicket.unlimited(reason);

/**
 * The one settle: `ticket` by the charge rule on the API server's answer (`undefined`: the call
 * threw, so the removal may have happened). The writer's alone, on every removal it sends (lint
 * refuses it anywhere else outside shared/kube); a no-op on a ticket already settled. Returns
 * whether it charged (undefined: settled before).
 */
export const settleRemoval = (ticket: RemovalTicket, answer: { outcome: string } | undefined): boolean | undefined =>
  RemovalTicket.settle(ticket, removalCharged(answer));

/**
 * A plan's ticket, which sends nothing (defrag's plan-only step): spent as the run's removal
 * would be, so what the plan's process admits next defers as a run's would (its brakes, a dry
 * run's, write nothing).
 */
export const spentByPlan = (ticket: RemovalTicket): void => void RemovalTicket.settle(ticket, true);

/**
 * A ticket its holder did not spend on a write (the object was gone or kept on the re-read, a
 * node mark before the eviction failed): given back, nothing charged. A no-op once the writer
 * settled it, so a holder may give its ticket back in a `finally` whatever happened before.
 */
export const unsent = (ticket: RemovalTicket): void => void RemovalTicket.settle(ticket, false);
