// How the act stage is fed and when: its schedules. A pass writes its plan in the policy's
// order once every page is read (`inPolicyOrder`), the order and the limits being over all of
// them. Where the order cannot change what is removed (selection/early.ts says when), deletes are
// written as their page is decided, and what a tick did not get to is the next tick's without a
// LIST: both fed `asTheyCome`, the next page read only once the writers are close to done when
// reading in steps. With a fan-out sink, a plan larger than one shard keeps its first shard and
// posts the rest to other instances (`fanOutTail`, shards.ts).
import { sweepSource } from '../../../model/keys.js';
import { carriesOn, readsInSteps, writesEarly } from '../../../selection/early.js';
import type { Decision } from '../../../selection/decision.js';
import type { SnapshotNeeds } from '../../../selection/needs.js';
import type { Policy } from '../../../policy/policy.js';
import { asTheyCome, type Fed } from '../../../pool/as-they-come.js';
import { inOrder, inTurn } from '../../../pool/in-order.js';
import type { RemovalTarget } from '../../../kube/evict-only.js';
import type { ClusterWriter } from '../../../kube/writer.js';
import type { CleanupHandle } from '../../handle.js';
import type { ActResult } from '../act.js';
import type { Carried, Carry, CarriedWrite } from '../carry.js';
import type { PassBrakes } from '../pass-brakes.js';
import { postShards, type FanOut, type Posted } from '../shards.js';
import type { ActStage } from './act.js';

export interface Schedule {
  /** Deletes written as their page is decided. */
  early: boolean;
  /** What this tick does not start is the next one's (carry.ts). */
  carry?: Carry | undefined;
  /** Every decision a delete, one scope: pages read as the writes go, a tick's unread pages the next tick's. */
  inSteps: boolean;
}

export interface ScheduleAsked {
  policy: Policy;
  early?: boolean | undefined;
  carry?: Carry | undefined;
  fanOut?: FanOut | undefined;
  namespaces?: readonly string[] | undefined;
  labelSelector?: string | undefined;
}

/** The schedules a pass may use: what it asked, where selection/early.ts allows it (the configured policy's brakes, a fan-out, what the decisions read). */
export function scheduleOf(o: ScheduleAsked, brakes: boolean, needs: SnapshotNeeds): Schedule {
  const conditions = { brakes, fanOut: o.fanOut !== undefined };
  const early = o.early === true && writesEarly(o.policy, conditions);
  const carry = o.carry && carriesOn(o.policy, conditions, needs) ? o.carry : undefined;
  const inSteps = carry !== undefined && early && !o.namespaces?.length && !o.labelSelector && readsInSteps(o.policy, conditions, needs);
  return { early, carry, inSteps };
}

/**
 * Early writes and a carried plan: started as they come (in the order the pages bring them),
 * each result handed on as it ends. No brakes apply to them (writesEarly), so taking a unit sends nothing.
 */
export function asTheyComeWrites(act: ActStage, brakes: PassBrakes, concurrency: number, stop: () => boolean): Fed<CarriedWrite> {
  return asTheyCome<CarriedWrite>(concurrency, stop, async ({ decision, target }) => {
    const result = await act.removal(decision, target, await brakes.take([decision], 0));
    act.told(result, decision);
  });
}

/**
 * The plan in the policy's order, up to the concurrency in flight. Each result is counted as it
 * comes and handed on in the policy's order, as soon as every one before it is done: only those
 * finished ahead of one still in flight wait here, nothing per removed pod outlives its write.
 * Returns how many were started (the first ones: started in order).
 */
export async function inPolicyOrder(
  act: ActStage,
  brakes: PassBrakes,
  own: readonly Decision[],
  targets: Map<string, RemovalTarget>,
  concurrency: number,
  stop: () => boolean,
): Promise<number> {
  const told = inTurn<ActResult>((r, i) => act.told(r, own[i]!));
  const acted = await inOrder(own, concurrency, stop, async (decision, i) => {
    const taken = await brakes.take(own, i);
    const target = targets.get(decision.uid)!;
    targets.delete(decision.uid);
    told(i, await act.removal(decision, target, taken));
    return true;
  });
  return acted.started;
}

/** With a fan-out sink and time left, a plan beyond one shard keeps the first and posts the rest. */
export async function fanOutTail(
  fanOut: FanOut | undefined,
  decisions: Decision[],
  pass: string,
  h: CleanupHandle,
  writer: ClusterWriter,
  overdue: () => boolean,
): Promise<{ own: Decision[]; fannedOut?: Posted }> {
  if (!fanOut || decisions.length <= fanOut.size || overdue()) return { own: decisions };
  const fannedOut = await postShards(fanOut, pass, decisions.slice(fanOut.size), sweepSource(pass), h, writer);
  return { own: decisions.slice(0, fanOut.size), fannedOut };
}

/** Hands what this tick did not start to the next one (carry.ts), and says so in the summary. */
export function carryOn(
  carry: Carry,
  policy: Policy,
  dryRun: boolean,
  left: CarriedWrite[],
  from: Pick<Carried, 'at' | 'resume'>,
): { carriedOn?: number; resumesList?: true } {
  carry.hold(policy, dryRun, { writes: left, at: from.at, ...(from.resume ? { resume: from.resume } : {}) });
  return { ...(left.length ? { carriedOn: left.length } : {}), ...(from.resume ? { resumesList: true as const } : {}) };
}
