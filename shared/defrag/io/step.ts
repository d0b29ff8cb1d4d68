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
// The one eviction (or evacuation request) asks the admission port first (kube/admission.ts,
// the brakes behind it) and is sent with its ticket, which the writer settles: the policy's
// maxNoOfPodsToEvict* and rates then hold across steps, instances and pod cleanup's removals,
// not only within one plan (core/plan-limits.ts).
import { spentByPlan, unsent, type Admission, type AdmissionDeferral, type RemovalTicket } from '../../kube/admission.js';
import type { KubeClients } from '../../kube/clients.js';
import { removalTarget } from '../../kube/evict-only.js';
import { tallied } from '../../kube/request-tally.js';
import { WriteRefusedError, type ClusterWriter } from '../../kube/writer.js';
import type { EvictionLimits } from '../../evictor/limits.js';
import { isTerminal } from '../../model/pod.js';
import { subjectOf } from '../../model/removal.js';
import { inFlightOf, markOf, ownerPods, type InFlight } from '../core/marks.js';
import { planDefrag } from '../core/plan.js';
import type { DefragPlan, Move, MoveGate } from '../core/types.js';
import { markNode, readCluster, type Cluster } from './cluster.js';
import { defragStepped } from '../../notify/families.js';
import type { Notifier } from '../../notify/notifier.js';

export interface StepIo {
  clients: Pick<KubeClients, 'core' | 'policy'>;
  /** Every change goes through it; its dryRun decides whether the step evicts or only plans. */
  writer: ClusterWriter;
  /** Asked before the step's one eviction, told the API server's answer after (kube/admission.ts): the limits that hold across steps, families and instances. */
  admission: Admission;
  /** The process's CloudEvents out (notify/notifier.ts): each step's. */
  notifier: Notifier;
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
  /**
   * `evacuation-requested`: the move's pod is marked request-evict-only; its evacuation was asked for instead of an eviction, and is in flight as an eviction would be.
   * `deferred`: the admission port held the move back (a budget of the policy is spent for this window, across steps, families and instances): nothing was written.
   */
  outcome: 'planned' | 'evicted' | 'evacuation-requested' | 'deferred' | 'waiting' | 'blocked' | 'stale' | 'converged';
  verified?: Verified;
  move?: Move;
  message?: string;
  /** Why the move was held back, and when its budget frees (`deferred`). */
  deferred?: AdmissionDeferral;
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
    defragStepped(io.notifier, report, io.writer.dryRun);
    return { ...report, requests: tally.sent };
  });
}

async function step(io: StepIo, opts: StepOptions): Promise<Omit<StepReport, 'requests'>> {
  const { clients, writer } = io;
  const dryRun = writer.dryRun;
  const cluster = await readCluster(clients, opts.pageSize);
  const checked = await verifyMoves(writer, cluster, opts);
  if ('waiting' in checked) return checked.waiting;
  const { verified } = checked;

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
      await markNode(writer, nodeNamed(cluster, t), { mark: 'freed' });
      nodesFreed++;
    } else if (stuck.has(t)) await markNode(writer, nodeNamed(cluster, t), { mark: null, cordon: false });
  }
  const freed = nodesFreed ? { nodesFreed } : {};
  const move = plan.moves[0];
  if (!move) return { outcome: 'converged', verified, plan: report(0), ...freed };
  if (dryRun) return { ...(await planned(io.admission, cluster, move)), verified, plan: report(plan.moves) };
  return { ...(await makeMove(io, cluster, move, targets, opts.now)), verified, plan: report(plan.moves.length), ...freed };
}

const nodeNamed = (cluster: Cluster, name: string) => cluster.nodes.find((n) => n.metadata.name === name)!;
const podOf = (cluster: Cluster, move: Move) => cluster.pods.find((p) => p.metadata.uid === move.pod.uid)!;

/**
 * The moves in flight (one per node marked), each verified once its replacement runs or its
 * time is up, and its record cleared; or, while one is still under way, the step waits.
 */
async function verifyMoves(
  writer: ClusterWriter,
  cluster: Cluster,
  opts: StepOptions,
): Promise<{ waiting: Omit<StepReport, 'requests'> } | { verified?: Verified }> {
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
      return { waiting: { outcome: 'waiting', move: f.move, message: what } };
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
    if (f.move.reserveFor) await markNode(writer, nodeNamed(cluster, f.move.from), { mark: null, cordon: false });
  }
  return { verified };
}

/**
 * A dry run's answer: the move a run would make, unless the limits would hold it back. Asked of
 * the port as a run would be (a dry run's brakes write nothing, and keep what they would have
 * charged in the process, as pod cleanup's dry run does), so a plan defers what a run would.
 */
async function planned(admission: Admission, cluster: Cluster, move: Move): Promise<Pick<StepReport, 'outcome' | 'move' | 'message' | 'deferred'>> {
  const admitted = await admission.admit(subjectOf(podOf(cluster, move)));
  if ('deferred' in admitted) return { outcome: 'deferred', move, message: admitted.deferred.why, deferred: admitted.deferred };
  // No write: spent as the run's eviction would be, so the plan's next step defers what a run's would.
  spentByPlan(admitted.ticket);
  return { outcome: 'planned' };
}

/**
 * The move made: admitted by the port before anything of it is written (a deferred move
 * cordons nothing: the node would sit empty of new work until the window frees), the nodes
 * marked, the one eviction (or evacuation request) sent and settled on the API server's answer,
 * and the move recorded in flight for the next step to verify.
 */
async function makeMove(
  io: StepIo,
  cluster: Cluster,
  move: Move,
  targets: string[],
  now: number,
): Promise<Pick<StepReport, 'outcome' | 'move' | 'message' | 'deferred'>> {
  const { writer, admission } = io;
  const pod = podOf(cluster, move);
  const admitted = await admission.admit(subjectOf(pod));
  // Deferred is an answer, not a failure (2xx): the next tick after the window frees makes the move.
  if ('deferred' in admitted) return { outcome: 'deferred', move, message: admitted.deferred.why, deferred: admitted.deferred };
  let result: Awaited<ReturnType<typeof evict>>;
  try {
    if (!targets.includes(move.frees)) await markNode(writer, nodeNamed(cluster, move.frees), { mark: 'target', cordon: true });
    if (move.reserveFor) await markNode(writer, nodeNamed(cluster, move.from), { mark: 'reserved', cordon: true });
    result = await evict(writer, pod, admitted.ticket, move);
  } finally {
    // A mark that failed sent no eviction: nothing spent (a no-op once the writer settled the ticket on the eviction's answer).
    unsent(admitted.ticket);
  }
  // The pod's evacuation asked for (request-evict-only): the pod leaves that way, so the move is
  // under way as after an eviction, and the next step verifies it the same way.
  const evacuation = result.outcome === 'evacuation-requested';
  if (result.outcome !== 'evicted' && !evacuation) {
    if (move.reserveFor) await markNode(writer, nodeNamed(cluster, move.from), { mark: null, cordon: false });
    return { outcome: result.outcome === 'blocked' ? 'blocked' : 'stale', move, message: result.message };
  }
  const ownerUids = ownerPods(cluster.pods, move.owner.uid).map((p) => p.metadata.uid ?? '');
  const inFlight: InFlight = { move, ownerUids, at: now, ...(evacuation ? { evacuation: true as const } : {}) };
  await markNode(writer, nodeNamed(cluster, move.frees), { inFlight });
  if (evacuation) return { outcome: 'evacuation-requested', move, message: result.message };
  return { outcome: 'evicted', move };
}

/** Who asks, as the evacuation request of a marked pod names it (the annotation's value says who asks). */
const REQUESTER = 'defrag';

/**
 * The move's eviction, tied to the pod as read (uid and resourceVersion), with its Event; for a
 * running pod marked request-evict-only, its evacuation request instead (removalTarget).
 */
async function evict(writer: ClusterWriter, pod: Cluster['pods'][number], ticket: RemovalTicket, move: Move): Promise<{ outcome: string; message?: string }> {
  try {
    return await writer.removePod(removalTarget(pod), ticket, `kube-tidy defragmentation: ${move.reason}`, { requester: REQUESTER });
  } catch (e) {
    // A protected namespace: the gate keeps such pods out of plans, but a policy without an evictor has no gate.
    if (e instanceof WriteRefusedError) return { outcome: 'blocked', message: e.message };
    throw e;
  }
}
