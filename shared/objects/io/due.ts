// Cleanup beyond pods at eligibility: an object only time stands in the way of (the pass's
// `eligible`: its condition has not held minAge yet) is acted on at that time by an in-process
// timer (pod cleanup's DueTimers, one per object uid, bounded, unref'd, re-armed by a newer
// event). When it fires nothing from the time of scheduling is trusted: the pass runs again
// over the stored objects of that namespace, restricted to this uid (`only`), and the write is
// tied to what is read then.
//
// What covers this instance's death or scale-to-zero between "due" and "acted" is the sweep
// (its objects pass decides every object past minAge), not a due list: pod cleanup's list
// (cleanup/due/io/list.ts) and its tick are shaped around a pod (its entries, its
// removeSelected), and the timers alone are the part that carries over unchanged. So an object
// whose timer died with its process is removed at most one sweep interval late, never early.
import { DueTimers, scheduleOf, type DueEntry, type TimerClock } from '../../cleanup/due/index.js';
import type { ObjectKind } from '../../policy/objects-schema.js';
import type { ObjectsHandle } from '../handle.js';
import { runObjectsPass, type ObjectsPassSummary } from './pass.js';

/** One object due at `at`: the timers' entry, with the kind the pass is restricted to. */
export interface ObjectDueEntry extends DueEntry {
  kind: ObjectKind;
}

export interface ObjectsDueOptions {
  /** The furthest a timer acts (DUE_HORIZON_SECONDS); further, it only looks again then. */
  horizonMs: number;
  /** Timers at once (DUE_TIMERS_MAX); one more is refused and logged, the sweep covers it. */
  timersMax: number;
  clock?: TimerClock;
}

export class ObjectsDue {
  readonly timers: DueTimers<ObjectDueEntry>;

  constructor(
    private readonly h: ObjectsHandle,
    private readonly o: ObjectsDueOptions,
  ) {
    this.timers = new DueTimers<ObjectDueEntry>({
      act: async (e) => void (await this.act(e)),
      max: o.timersMax,
      horizonMs: o.horizonMs,
      log: h.log,
      metrics: h.metrics,
      ...(o.clock ? { clock: o.clock } : {}),
    });
  }

  /**
   * After a pass restricted to one object: its `eligible` time arms (or re-arms) its timer;
   * anything else (decided, kept, gone, no longer matching) clears it. Answers the time
   * scheduled, when a timer will act then.
   */
  schedule(id: Omit<ObjectDueEntry, 'at'>, summary: Pick<ObjectsPassSummary, 'eligible'>): { scheduled?: string } {
    const eligible = summary.eligible.find((e) => e.kind === id.kind && e.uid === id.uid);
    const when = scheduleOf(eligible?.at, this.h.now(), this.o.horizonMs);
    if (!when) {
      this.timers.clear(id.uid);
      return {};
    }
    const armed = this.timers.arm({ ...id, at: when.at });
    return armed === 'armed' || armed === 'unchanged' ? { scheduled: new Date(when.at).toISOString() } : {};
  }

  /** The object is gone (a delete event): its timer has nothing left to do. */
  forget(uid: string): void {
    this.timers.clear(uid);
  }

  /** A timer fired: the pass over what is stored now, restricted to this object; re-armed if it is still only waiting. */
  async act(e: ObjectDueEntry): Promise<ObjectsPassSummary> {
    const summary = await runObjectsPass(this.h, {
      origin: 'due',
      dryRun: this.h.settings.dryRun,
      only: { kind: e.kind, uid: e.uid },
      readNamespace: e.namespace,
    });
    this.h.log.info(
      {
        object: `${e.kind} ${e.namespace}/${e.name}`,
        uid: e.uid,
        dueAt: new Date(e.at).toISOString(),
        outcomes: summary.results.map((r) => r.outcome),
        kept: summary.kept.map((k) => k.reason),
      },
      'objects due: acted at eligibility',
    );
    this.schedule(e, summary);
    return summary;
  }

  /** Every timer cleared (a standalone replica without its Lease acts no more). */
  stop(): void {
    this.timers.stop();
  }
}
