// The admit stage of a pass: its brakes (docs/brakes.md). The descheduler's limits were applied to the pass's plan
// as one cycle (selection/across-pages.ts); these are what hold across passes, events and
// instances. Before acting: scopes a percentage abort stopped are left alone, and the plan is
// cut where it would cross an abort's percent (the brakes themselves: a pass's, not a removal's).
// While acting: each removal asks the admission port (kube/admission.ts), which takes a unit of
// every budget from the shared ledger (reserved a batch at a time), and a cluster-wide budget
// that runs out stops new writes (`stoppedBy: budget`).
import { abortCut, consideredIn } from '../../brakes/core/abort.js';
import { stopOf } from '../../brakes/core/deferral.js';
import { standing } from '../../brakes/core/ledger.js';
import { subjectOf, type Subject } from '../../brakes/core/meters.js';
import { brakeSetOf, hasBrakes, tripDeferral, type BrakeSet, type Brakes, type Deferral } from '../../brakes/io/brakes.js';
import type { Admission, Admitted } from '../../kube/admission.js';
import { tallied } from '../../kube/request-tally.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { Logger } from '../../log.js';
import { observeAbort } from '../../metrics/observe.js';
import type { Pod } from '../../model/objects.js';
import type { Decision, Kept } from '../../selection/decision.js';
import type { Policy } from '../../policy/policy.js';
import type { CleanupHandle } from '../handle.js';
import { tellDeferral } from '../../brakes/io/tell.js';

/** Pods reserved in one ledger write when a pass needs units: one write per this many removals. */
const AHEAD = 256;

export interface PassBrakesSummary {
  /** Pods held back by a budget or an abort, by the setting that held them. */
  deferred: number;
  byBudget: Record<string, number>;
  /** The abort that cut the plan, if one did. */
  aborted?: { scope: string; key: string; percent: number; selected: number; considered: number; why: string };
  /** Trips a person's override lifted before this pass. */
  resumed?: number;
  /**
   * Requests this pass sent to the ledger (reads and writes, retries after throttling
   * included): a tally around each of its calls to the process's Brakes, which other passes
   * and events use at the same time. Also counted in the pass's `requests`.
   */
  ledgerRequests: number;
}

/** A pass's brakes over the configured policy's limits (they hold whatever policy a pass runs: invoke may bring its own). */
export function passBrakesOf(h: CleanupHandle, dryRun: boolean, override: boolean): PassBrakes {
  const configured = h.policy();
  const ledger = h.brakes({ dryRun });
  const admission = h.admission({ brakes: ledger, path: 'pass', policy: () => configured });
  return new PassBrakes(ledger, admission, configured, override);
}

export class PassBrakes {
  readonly set: BrakeSet;
  private readonly considered = new Map<string, number>();
  private readonly subjects = new Map<string, Subject>();
  private readonly firstDeferral = new Map<string, Deferral>();
  private readonly pending = new Map<string, number>();
  readonly summary: PassBrakesSummary = { deferred: 0, byBudget: {}, ledgerRequests: 0 };
  /** A cluster-wide budget ran out, or the ledger failed: no new writes this pass. */
  stopped = false;
  /** The ledger could not be read or written (stopped for that, not for a budget). */
  ledgerFailed = false;
  /** This pass's id, once gated: its own abort's trip does not stop what it kept before the line. */
  private pass: string | undefined;

  constructor(
    readonly brakes: Brakes,
    /** The port over `brakes` every removal asks, with this pass's limits; it tells no deferral (`finish` does). */
    private readonly admission: Admission,
    policy: Policy,
    /** invoke's explicit override: lift every trip and do not judge this pass's percentages. */
    private readonly override: boolean,
  ) {
    this.set = brakeSetOf(policy);
  }

  /** One call to the ledger, its requests counted as this pass's ledger requests (even when it fails). */
  private async ledger<T>(call: () => Promise<T>): Promise<T> {
    return tallied(async (tally) => {
      try {
        return await call();
      } finally {
        this.summary.ledgerRequests += tally.sent;
      }
    });
  }

  /** With an abort, the pass lists every phase: its percent is of every pod in the scope, not only the terminal ones. */
  get countsEveryPod(): boolean {
    return this.set.aborts.length > 0;
  }

  /** One page read: what it holds counts as considered; the chosen pods' subjects are kept for their charges. */
  see(pods: readonly Pod[], chosen: ReadonlySet<string>): void {
    if (!hasBrakes(this.set)) return;
    for (const pod of pods) {
      const counted = this.countsEveryPod;
      if (!counted && !chosen.has(pod.metadata.uid!)) continue;
      const s = subjectOf(pod);
      if (counted) for (const id of consideredIn(this.set.aborts, s)) this.considered.set(id, (this.considered.get(id) ?? 0) + 1);
      if (chosen.has(pod.metadata.uid!)) this.subjects.set(pod.metadata.uid!, s);
    }
  }

  private subject(d: Decision): Subject {
    return this.subjects.get(d.uid) ?? { namespace: d.namespace, ...(d.node ? { node: d.node } : {}) };
  }

  /** The plan after stopped scopes and the abort: what may be written, and what is kept and why. */
  async gate(decisions: Decision[], pass: string, now: number): Promise<{ decisions: Decision[]; kept: Kept[] }> {
    if (!hasBrakes(this.set)) return { decisions, kept: [] };
    this.pass = pass;
    // A person's override lifts every trip; otherwise trips no rule stands behind any more are lifted for good.
    const lifted = await this.ledger(() => this.brakes.resume(this.override ? () => true : (t) => !standing(t, this.set.aborts), this.override));
    if (lifted) this.summary.resumed = lifted;
    if (this.set.aborts.length === 0 || this.override) return { decisions, kept: [] };
    const kept: Kept[] = [];
    const keep = (d: Decision, reason: string) =>
      kept.push({ namespace: d.namespace, name: d.name, uid: d.uid, profile: d.profile, strategy: d.strategy, reason });
    const state = await this.ledger(() => this.brakes.state());
    const open: Decision[] = [];
    for (const d of decisions) {
      const deferral = stopOf(state, this.set.aborts, this.subject(d));
      if (deferral) {
        this.count(deferral);
        keep(d, deferral.why);
      } else open.push(d);
    }
    const cut = abortCut(
      open.map((d) => this.subject(d)),
      this.considered,
      this.set.aborts,
    );
    if (cut.trip) {
      this.summary.aborted = { ...cut.trip, why: cut.why! };
      const trip = { ...cut.trip, at: now, pass };
      await this.ledger(() => this.brakes.trip(trip));
      observeAbort(this.brakes.metrics, cut.trip.scope);
      // Held back by the abort: counted, and said in the ledger's namespace by this pass (not only by the next).
      if (open.length > cut.keep) this.count(tripDeferral(trip), open.length - cut.keep);
      for (const d of open.slice(cut.keep)) keep(d, `${cut.why}: stopped before this pod`);
    }
    return { decisions: open.slice(0, cut.keep), kept };
  }

  /**
   * A unit for the i-th removal of `own`, reserving for the next ones when it needs a write.
   * A ledger that cannot be read or written stops the pass's writes: no removal without its
   * unit (the error is the pod's result: transient or refused, as the API server said).
   */
  async take(own: readonly Decision[], i: number): Promise<Admitted | { error: Error }> {
    let taken: Admitted;
    try {
      taken = await this.ledger(() =>
        this.admission.admit(this.subject(own[i]!), { ahead: () => own.slice(i + 1, i + 1 + AHEAD).map((d) => this.subject(d)), pass: this.pass }),
      );
    } catch (e) {
      this.stopped = true;
      this.ledgerFailed = true;
      return { error: e as Error };
    }
    if ('deferred' in taken) {
      this.count(taken.deferred);
      if (taken.deferred.scope === 'cluster') this.stopped = true;
    }
    return taken;
  }

  /** Whether the summary says what the brakes did (they held something back, or spoke to the ledger). */
  get reported(): boolean {
    const s = this.summary;
    return s.deferred > 0 || s.aborted !== undefined || (s.resumed ?? 0) > 0 || s.ledgerRequests > 0;
  }

  /**
   * After the ordered writes, `n` never started: held back by a cluster budget, they count as
   * deferred; not started because the ledger failed, they are work left undone (returned: transient
   * failures, 503, the scheduler retries).
   */
  leftUnstarted(n: number): number {
    if (this.ledgerFailed) return n;
    if (this.stopped) this.notStarted(n);
    return 0;
  }

  /** Pods never started because a cluster budget stopped the pass. */
  notStarted(n: number): void {
    if (n > 0 && this.firstDeferral.size > 0) {
      const d = [...this.firstDeferral.values()].find((x) => x.scope === 'cluster') ?? [...this.firstDeferral.values()][0]!;
      this.count(d, n);
    }
  }

  private count(d: Deferral, n = 1): void {
    this.summary.deferred += n;
    this.summary.byBudget[d.budget] = (this.summary.byBudget[d.budget] ?? 0) + n;
    const key = `${d.budget}|${d.scope}|${d.key ?? ''}`;
    if (!this.firstDeferral.has(key)) this.firstDeferral.set(key, d);
    this.pending.set(key, (this.pending.get(key) ?? 0) + n);
  }

  /** Settles the ledger, and says once per budget and window what was held back. */
  async finish(writer: ClusterWriter, log: Logger): Promise<void> {
    await this.ledger(() => this.brakes.settle());
    for (const [key, d] of this.firstDeferral) await tellDeferral(writer, log, this.brakes, d, 'pass', this.pending.get(key) ?? 1);
  }
}
