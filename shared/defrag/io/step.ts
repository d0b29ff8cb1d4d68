// One defragmentation step per invocation: verify the last move (did the replacement run,
// and where), re-plan from the cluster as it is, then make the next single eviction. The
// scheduler places every replacement; the node being freed is cordoned so nothing lands
// there, and a swap's spot is held by cordoning it until the blocker's replacement runs.
// Only cordons kube-tidy made are ever undone (core/marks.ts, CORDONED).
// Re-planning each step is how drift is handled: the plan always starts from the truth.
// Every write goes through the writer: in a dry run (DRY_RUN, or a plan-only call) the
// verify step's clean-up is sent with dryRun=All and only the local copy of a node changes.
import type { KubeClients } from '../../kube/clients.js';
import { storedPodId } from '../../kube/from-client.js';
import { WriteRefusedError, type ClusterWriter } from '../../kube/writer.js';
import type { EvictionLimits } from '../../evictor/limits.js';
import { inFlightOf, markOf, ownerPods, type InFlight } from '../core/marks.js';
import { planDefrag } from '../core/plan.js';
import type { DefragPlan, Move, MoveGate } from '../core/types.js';
import { markNode, readCluster, type Cluster } from './cluster.js';

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
  outcome: 'planned' | 'evicted' | 'waiting' | 'blocked' | 'stale' | 'converged';
  verified?: Verified;
  move?: Move;
  message?: string;
  plan?: Pick<DefragPlan, 'summary' | 'freed' | 'notFreed' | 'lowerBound' | 'maxFreeable' | 'occupied'> & { moves: Move[] | number };
  requests: number;
  /** Target nodes this step found empty and marked freed (the metrics count them). */
  nodesFreed?: number;
}

export async function defragStep({ clients, writer }: StepIo, opts: StepOptions): Promise<StepReport> {
  const dryRun = writer.dryRun;
  const cluster = await readCluster(clients, opts.pageSize);
  let requests = cluster.requests;
  const nodeNamed = (name: string) => cluster.nodes.find((n) => n.metadata.name === name)!;
  let verified: Verified | undefined;

  for (const node of cluster.nodes) {
    const f = inFlightOf(node);
    if (!f) continue;
    const evictedStill = cluster.pods.some((p) => p.metadata.uid === f.move.pod.uid && !p.metadata.deletionTimestamp);
    const running = ownerPods(cluster.pods, f.move.owner.uid).filter((p) => p.status?.phase === 'Running' && p.spec?.nodeName);
    const replacement = running.find((p) => !f.ownerUids.includes(p.metadata.uid ?? ''));
    const settled = running.length >= f.ownerUids.length && replacement !== undefined;
    if (!evictedStill && !settled && opts.now - f.at < opts.settleTimeoutMs) {
      return { outcome: 'waiting', move: f.move, message: `replacement of ${f.move.pod.name} not running yet`, requests };
    }
    const landed = replacement?.spec?.nodeName;
    const asPlanned = landed === f.move.to;
    verified = { pod: `${f.move.pod.namespace}/${f.move.pod.name}`, expected: f.move.to, landed, asPlanned };
    if (!asPlanned)
      verified.drift = evictedStill
        ? 'the pod was not evicted'
        : landed
          ? `landed on ${landed}, not ${f.move.to}: re-planned`
          : 'no replacement ran in time: re-planned';
    await markNode(writer, node, { inFlight: null });
    requests++;
    // The swap's held spot is released now that the blocker runs elsewhere.
    if (f.move.reserveFor) {
      await markNode(writer, nodeNamed(f.move.from), { mark: null, cordon: false });
      requests++;
    }
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
    else continue;
    requests++;
  }
  const freed = nodesFreed ? { nodesFreed } : {};
  const move = plan.moves[0];
  if (!move) return { outcome: 'converged', verified, plan: report(0), requests, ...freed };
  if (dryRun) return { outcome: 'planned', verified, plan: report(plan.moves), requests };

  if (!targets.includes(move.frees)) {
    await markNode(writer, nodeNamed(move.frees), { mark: 'target', cordon: true });
    requests++;
  }
  if (move.reserveFor) {
    await markNode(writer, nodeNamed(move.from), { mark: 'reserved', cordon: true });
    requests++;
  }
  const pod = cluster.pods.find((p) => p.metadata.uid === move.pod.uid)!;
  const ownerUids = ownerPods(cluster.pods, move.owner.uid).map((p) => p.metadata.uid ?? '');
  const result = await evict(writer, pod, move);
  requests++;
  if (result.outcome !== 'evicted') {
    if (move.reserveFor) await markNode(writer, nodeNamed(move.from), { mark: null, cordon: false });
    return {
      outcome: result.outcome === 'blocked' ? 'blocked' : 'stale',
      verified,
      move,
      message: result.message,
      plan: report(plan.moves.length),
      requests,
      ...freed,
    };
  }
  const inFlight: InFlight = { move, ownerUids, at: opts.now };
  await markNode(writer, nodeNamed(move.frees), { inFlight });
  requests++;
  return { outcome: 'evicted', verified, move, plan: report(plan.moves.length), requests, ...freed };
}

/** The move's eviction, tied to the pod as read (uid and resourceVersion), with its Event. */
async function evict(writer: ClusterWriter, pod: Cluster['pods'][number], move: Move): Promise<{ outcome: string; message?: string }> {
  try {
    return await writer.removePod(storedPodId(pod), `kube-tidy defragmentation: ${move.reason}`);
  } catch (e) {
    // A protected namespace: the gate keeps such pods out of plans, but a policy without an evictor has no gate.
    if (e instanceof WriteRefusedError) return { outcome: 'blocked', message: e.message };
    throw e;
  }
}
