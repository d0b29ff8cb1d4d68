import type { Policy } from '../policy/policy.js';
import type { SnapshotNeeds } from './needs.js';
import type { Decision, Plan } from './decision.js';
import { selectsOnlyFinished } from './field-selector.js';

// When a pass may write a decision before it has read every page, and when what it did not
// get to may be handed to its next tick without listing again (issue 27). A pass orders its
// decisions over the whole cluster (across-pages.ts) because the order decides WHAT is
// removed when something caps it: the descheduler's maxNoOfPodsToEvict* keep the first in
// the order, kube-tidy's brakes charge in it, retention keeps an owner's newest, and
// evictions meet PodDisruptionBudgets first come first served. Where none of that applies
// the order only decides WHEN each pod goes, so a page's deletes can be written as soon as
// it is decided while the next pages are read:
// - no maxNoOfPodsToEvict* limit, no kubeTidy.retention rule, no brakes (budgets, rates,
//   aborts: the configured policy's), no fan-out (a planner posts the plan's tail as
//   shards, in the order);
// - deletes only (a stored Succeeded or Failed pod): an eviction of a running pod meets its
//   PDB, whose disruptions go to whichever comes first, so evictions still wait for the
//   whole plan and go in its order.
// A time budget still cuts the pass: what it did not start is not the youngest then, but
// every pod left was selected, and the next tick takes it.
//
// Handed on (`carry`) to the next tick of the same instance, with the same conditions, only
// when each decision rests on the pod alone (the policy reads no nodes, namespaces, PDBs,
// PVCs, priority classes or other pods: SnapshotNeeds all false): the write's preconditions
// (uid and resourceVersion) then say the pod is as it was decided on, and time only ever
// brings pods in (every strategy's age and TTL rules are lower bounds).

// Read in steps (`readsInSteps`), when it carries on and every decision is a delete (the
// policy selects only stored Succeeded or Failed pods): the next page is read only once fewer
// than two pages' worth of deletes wait to be started (earlyAhead), so a pass holds about that many decisions
// whatever the cluster's size, and a tick cut by its budget hands on, with what it did not
// start, the continue token of the page it did not read: the next tick goes on from there
// instead of listing from the start.

/** Deletes waiting to be started before the next page is read, when a pass reads in steps: two pages' worth (1,000 at the default 500), a page is read long before they are written. */
export const earlyAhead = (pageSize: number): number => 2 * pageSize;

export interface EarlyConditions {
  /** The configured policy has brakes (docs/brakes.md). */
  brakes: boolean;
  /** The pass posts shards for other instances. */
  fanOut: boolean;
}

/** Whether this pass may write deletes as their pages are decided. */
export function writesEarly(policy: Policy, c: EarlyConditions): boolean {
  const { perNode, perNamespace, total } = policy.limits;
  return perNode === undefined && perNamespace === undefined && total === undefined && !policy.retention?.length && !c.brakes && !c.fanOut;
}

/** Whether what this pass did not get to may be handed to its next tick (writesEarly, and decisions on the pod alone). */
export function carriesOn(policy: Policy, c: EarlyConditions, needs: SnapshotNeeds): boolean {
  return writesEarly(policy, c) && !Object.values(needs).some(Boolean);
}

/** Whether this pass reads its pages in steps, as its writes go (carriesOn, and every decision a delete). */
export function readsInSteps(policy: Policy, c: EarlyConditions, needs: SnapshotNeeds): boolean {
  return carriesOn(policy, c, needs) && selectsOnlyFinished(policy);
}

/** A page's plan split: the deletes to write now, and the rest (evictions) with their places in the policy's order. */
export function splitEarly(plan: Plan): { early: Decision[]; rest: Plan } {
  const early: Decision[] = [];
  const rest: Plan = { ...plan, decisions: [], order: { run: [], key: [] } };
  plan.decisions.forEach((d, i) => {
    if (d.action === 'delete') early.push(d);
    else {
      rest.decisions.push(d);
      rest.order.run.push(plan.order.run[i]!);
      rest.order.key.push(plan.order.key[i]!);
    }
  });
  return { early, rest };
}
