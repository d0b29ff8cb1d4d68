// MultiKueue's removals in a worker are outside every budget, on purpose (docs/multikueue.md):
// the manager already deleted the Job, so what a worker still holds is the cascade the garbage
// collector would have done, not a decision a removal limit should hold back; a deferred copy
// would keep its pods running and its quota held. They are still sent only with a ticket: this
// one, whose reason the writer's answer carries (kube/admission.ts `unlimited`).
import { unlimited, type RemovalTicket } from '../../kube/admission.js';

/** Why a worker's copy or orphan pod is removed outside the budgets. */
export const CASCADE_OUTSIDE_BUDGETS =
  "MultiKueue: the manager's Job is gone; a worker's copy goes as the garbage collector's cascade would, outside the budgets";

/** A ticket for one worker removal: unlimited, with its reason. */
export const cascadeTicket = (): RemovalTicket => unlimited(CASCADE_OUTSIDE_BUDGETS);
