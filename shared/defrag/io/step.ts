// One defragmentation step per invocation: verify the last move (did the replacement run,
// and where), re-plan from the cluster as it is, then make the next single eviction. The
// scheduler places every replacement; the node being freed is cordoned so nothing lands
// there, and a swap's spot is held by cordoning it until the blocker's replacement runs.
// Only cordons kube-tidy made are ever undone (core/marks.ts, CORDONED).
// Re-planning each step is how drift is handled: the plan always starts from the truth.
// Every write goes through the writer: in a dry run (DRY_RUN, or a plan-only call) the
// verify step's clean-up is sent with dryRun=All and only the local copy of a node changes.
// A pod its owner marked request-evict-only is not evicted: the move asks for its evacuation
// (the descheduler's EvictionsInBackground contract, kube/evict-only.ts) and is followed as
// any move in flight, until the pod has left and its replacement runs.
import type { KubeClients } from '../../kube/clients.js';
import { removalTarget } from '../../kube/evict-only.js';
import { tallied } from '../../kube/request-tally.js';
import { WriteRefusedError, type ClusterWriter } from '../../kube/writer.js';
import type { EvictionLimits } from '../../evictor/limits.js';
import { isTerminal } from '../../model/pod.js';
import { inFlightOf, markOf, ownerPods, type InFlight } from '../core/marks.js';
import { planDefrag } from '../core/plan.js';
import type { DefragPlan, Move, MoveGate } from '../core/types.js';
import { markNode, readCluster, type Cluster } from './cluster.js';
import { defragStepped } from '../../notify/families.js';

export interface StepIo {
  clients: Pick<KubeClients, 'core' | 'policy'>;
  /** Every change goes through it; its dryRun decides whether the step evicts or only plans. */
  writer: ClusterWriter;
}

export interface StepOptions {
  now: number;
  gate?: (cluster: Cluster) => MoveGate;
  limits?: EvictionLimits;
  /** How long a replacement may take to run before the step stops waiting and re-plans. */
  settleTimeoutMs: number;
  /** Pods per LIST page when reading the cluster. */
  pageSize: number;
}

export interface Verified {
  pod: string;
  expected: string;
  landed?: string;
  asPlanned: boolean;
  drift?: string;
}

export interface StepReport {
  /** `evacuation-requested`: the move's pod is marked request-evict-only; its evacuation was asked for instead of an eviction, and is in flight as an eviction would be. */
  outcome: 'planned' | 'evicted' | 'evacuation-requested' | 'waiting' | 'blocked' | 'stale' | 'converged';
  verified?: Verified;
  move?: Move;
  message?: string;
  plan?: Pick<DefragPlan, 'summary' | 'freed' | 'notFreed' | 'lowerBound' | 'maxFreeable' | 'occupied'> & { moves: Move[] | number };
  /** Requests sent to the API server for this step, retries after throttling and Events included (counted as they are sent: kube/request-tally.ts). */
  requests: number;
  /** Target nodes this step found empty and marked freed (the metrics count them). */
  nodesFreed?: number;
}

/** One step, its requests counted by the client middleware as they are sent, not by hand beside each call. */
export function defragStep(io: StepIo, opts: StepOptions): Promise<StepReport> {
  return tallied(async (tally) => {
    const report = await step(io, opts);
    defragStepped(report, io.writer.dryRun);
    return { ...report, requests: tally.sent };
  });
}

async function step({ clients, writer }: StepIo, opts: StepOptions): Promise<Omit<StepReport, 'requests'>> {
  const dryRun = writer.dryRun;
  const cluster = await readCluster(clients, opts.pageSize);
  const nodeNamed = (name: string) => cluster.nodes.find((n) => n.metadata.name === name)!;
  let verified: Verified | undefined;

  for (const node of cluster.nodes) {
    const f = inFlightOf(node);
    if (!f) continue;
    // A live-migrated VM's source pod completes (Succeeded) rather than being deleted: after an
    // evacuation, a pod still there but terminal has left.
    const stillThere = cluster.pods.some((p) => p.metadata.uid === f.move.pod.uid && !p.metadata.deletionTimestamp && !(f.evacuation && isTerminal(p)));
    const running = ownerPods(cluster.pods, f.move.owner.uid).filter((p) => p.status?.phase === 'Running' && p.spec?.nodeName);
    const replacement = running.find((p) => !f.ownerUids.includes(p.metadata.uid ?? ''));
    const settled = running.length >= f.ownerUids.length && replacement !== undefined;
    // An eviction acts at once (a pod still there was not evicted: nothing to wait for); an
    // evacuation takes its time, and is waited for until the pod has left and its replacement runs.
    const pending = f.evacuation ? stillThere || !settled : !stillThere && !settled;
    if (pending && opts.now - f.at < opts.settleTimeoutMs) {
      const what = f.evacuation ? `evacuation of ${f.move.pod.name} under way` : `replacement of ${f.move.pod.name} not running yet`;
      return { outcome: 'waiting', move: f.move, message: what };
    }
    const landed = replacement?.spec?.nodeName;
    const asPlanned = landed === f.move.to;
    verified = { pod: `${f.move.pod.namespace}/${f.move.pod.name}`, expected: f.move.to, landed, asPlanned };
    if (!asPlanned)
      verified.drift = stillThere
        ? f.evacuation
          ? 'its evacuation did not move the pod in time: re-planned'
          : 'the pod was not evicted'
        : landed
          ? `landed on ${landed}, not ${f.move.to}: re-planned`
          : 'no replacement ran in time: re-planned';
    await markNode(writer, node, { inFlight: null });
    // The swap's held spot is released now that the blocker runs elsewhere.
    if (f.move.reserveFor) await markNode(writer, nodeNamed(f.move.from), { mark: null, cordon: false });
  }

  const targets = cluster.nodes.filter((n) => markOf(n) === 'target').map((n) => n.metadata.name!);
  const plan = planDefrag(cluster, { gate: opts.gate?.(cluster), limits: opts.limits, preferTargets: targets });
  const report = (moves: Move[] | number) => ({
    summary: plan.summary,
    freed: plan.freed,
    notFreed: plan.notFreed,
    lowerBound: plan.lowerBound,
    maxFreeable: plan.maxFreeable,
    occupied: plan.occupied,
    moves,
  });

  // A target with nothing left that counts is done: it stays cordoned, for the autoscaler.
  const occupiedNow = new Set(plan.notFreed.map((x) => x.node).concat(plan.freed.map((x) => x.node)));
  const stuck = new Set(plan.notFreed.map((x) => x.node));
  let nodesFreed = 0;
  for (const t of dryRun ? [] : targets) {
    // Done, or no longer freeable after drift: mark it freed, or give the node back.
    if (!occupiedNow.has(t)) {
      await markNode(writer, nodeNamed(t), { mark: 'freed' });
      nodesFreed++;
    } else if (stuck.has(t)) await markNode(writer, nodeNamed(t), { mark: null, cordon: false });
  }
  const freed = nodesFreed ? { nodesFreed } : {};
  const move = plan.moves[0];
  if (!move) return { outcome: 'converged', verified, plan: report(0), ...freed };
  if (dryRun) return { outcome: 'planned', verified, plan: report(plan.moves) };

  if (!targets.includes(move.frees)) await markNode(writer, nodeNamed(move.frees), { mark: 'target', cordon: true });
  if (move.reserveFor) await markNode(writer, nodeNamed(move.from), { mark: 'reserved', cordon: true });
  const pod = cluster.pods.find((p) => p.metadata.uid === move.pod.uid)!;
  const ownerUids = ownerPods(cluster.pods, move.owner.uid).map((p) => p.metadata.uid ?? '');
  const result = await evict(writer, pod, move);
  // The pod's evacuation asked for (request-evict-only): the pod leaves that way, so the move is
  // under way as after an eviction, and the next step verifies it the same way.
  const evacuation = result.outcome === 'evacuation-requested';
  if (result.outcome !== 'evicted' && !evacuation) {
    if (move.reserveFor) await markNode(writer, nodeNamed(move.from), { mark: null, cordon: false });
    return {
      outcome: result.outcome === 'blocked' ? 'blocked' : 'stale',
      verified,
      move,
      message: result.message,
      plan: report(plan.moves.length),
      ...freed,
    };
  }
  const inFlight: InFlight = { move, ownerUids, at: opts.now, ...(evacuation ? { evacuation: true as const } : {}) };
  await markNode(writer, nodeNamed(move.frees), { inFlight });
  if (evacuation) return { outcome: 'evacuation-requested', verified, move, message: result.message, plan: report(plan.moves.length), ...freed };
  return { outcome: 'evicted', verified, move, plan: report(plan.moves.length), ...freed };
}

/** Who asks, as the evacuation request of a marked pod names it (the annotation's value says who asks). */
const REQUESTER = 'defrag';

/**
 * The move's eviction, tied to the pod as read (uid and resourceVersion), with its Event; for a
 * running pod marked request-evict-only, its evacuation request instead (removalTarget).
 */
async function evict(writer: ClusterWriter, pod: Cluster['pods'][number], move: Move): Promise<{ outcome: string; message?: string }> {
  try {
    return await writer.removePod(removalTarget(pod), `kube-tidy defragmentation: ${move.reason}`, { requester: REQUESTER });
  } catch (e) {
    // A protected namespace: the gate keeps such pods out of plans, but a policy without an evictor has no gate.
    if (e instanceof WriteRefusedError) return { outcome: 'blocked', message: e.message };
    throw e;
  }
}
