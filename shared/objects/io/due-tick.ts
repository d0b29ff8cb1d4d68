// The objects due lists' tick: pod cleanup's tick loop (cleanup/due/io/tick-loop.ts) over the
// objects' lists. Any instance, on its schedule, holds its request until the next tick, reading
// every kind's list every DUE_POLL_SECONDS (a GET per shard, never an object LIST), and acts on
// each entry due by then at its time, through the same pass as a timer (objects/io/due.ts: the
// stored objects read again, the write tied to them). So an object whose timer died with its
// process is acted on at its time by whichever instance ticks. As pod cleanup's: a tick from a
// sender DUE_TICK_SENDERS does not name is refused before anything is read, ticks at once join
// the one loop running, and an entry the pass decided on (deleted, gone, not selected, not yet
// eligible: its own event or the sweep lists it again) leaves the list, so a forged or stale
// entry is read once, not on every tick.
import { DEFAULT_LOOK_AHEAD_MS, DEFAULT_MARGIN_MS, TickLoop, type DueList, type Taken, type TickResult } from '../../cleanup/due/index.js';
import { OBJECT_KINDS } from '../../policy/objects-schema.js';
import { settled, type ObjectDueEntry, type ObjectsDue } from './due.js';

/** What a tick did: pod cleanup's tick's answer. */
export type ObjectsTickResult = TickResult;

export interface ObjectsTickOptions {
  /** How often a holding tick reads the lists again (DUE_POLL_SECONDS). */
  pollMs: number;
  /** Who may tick (DUE_TICK_SENDERS); unset: any sender the process lets through. */
  tickSenders?: readonly string[];
}

export class ObjectsTick {
  private readonly loop: TickLoop<ObjectDueEntry>;

  constructor(
    private readonly due: ObjectsDue,
    o: ObjectsTickOptions,
    sleep?: (ms: number) => Promise<void>,
  ) {
    const { h } = due;
    this.loop = new TickLoop<ObjectDueEntry>(
      {
        target: 'objectUpdated',
        // Every objects kind's lists, and those of each kind the policy's ttl rules name now.
        read: async () =>
          (
            await Promise.all([
              ...OBJECT_KINDS.map(async (kind) => (await due.lists[kind].read()).map((e) => ({ ...e, kind }))),
              ...due.ttlKinds().map(async (ttl) => (await due.listOf({ kind: ttl.kind, uid: '', ttl }).read()).map((e) => ({ ...e, kind: ttl.kind, ttl }))),
            ])
          ).flat(),
        // This tick acts on it: this instance's timer would only repeat it.
        claim: (e) => due.timers.clear(e.uid),
        take: (e) => this.take(e),
        remove: (done) => this.remove(done),
        now: () => h.now(),
        log: h.log,
      },
      {
        horizonMs: due.o.horizonMs,
        lookAheadMs: DEFAULT_LOOK_AHEAD_MS,
        marginMs: DEFAULT_MARGIN_MS,
        pollMs: o.pollMs,
        ...(o.tickSenders ? { tickSenders: o.tickSenders } : {}),
      },
      sleep,
    );
  }

  /** Why a tick from `sender` is not taken (DUE_TICK_SENDERS), or undefined. */
  refused(sender: string | undefined): string | undefined {
    return this.loop.refused(sender);
  }

  tick(deadline: number): Promise<ObjectsTickResult> {
    return this.loop.tick(deadline);
  }

  private async take(e: ObjectDueEntry): Promise<Taken> {
    const summary = await this.due.pass(e);
    // Not selected (nothing-to-do) or kept is a decision too: the entry has served and leaves the list.
    const outcomes = summary.results.length ? summary.results.map((r) => r.outcome) : [summary.kept.length ? 'kept' : 'nothing-to-do'];
    this.due.h.log.info(
      { object: `${e.kind} ${e.namespace}/${e.name}`, uid: e.uid, dueAt: new Date(e.at).toISOString(), outcomes },
      'objects due: acted at eligibility (tick)',
    );
    return { outcomes, settled: settled(summary), transient: summary.failures.transient, refused: summary.failures.refused };
  }

  private async remove(done: readonly ObjectDueEntry[]): Promise<number> {
    this.due.forgetListed(done.map((e) => e.uid));
    if (this.due.h.settings.dryRun) return 0;
    // One removal per list the entries came from.
    const byList = new Map<DueList, string[]>();
    for (const e of done) {
      const list = this.due.listOf(e);
      byList.set(list, [...(byList.get(list) ?? []), e.uid]);
    }
    let removed = 0;
    for (const [list, uids] of byList) removed += await list.remove(uids);
    return removed;
  }
}
