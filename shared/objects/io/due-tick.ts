// The objects due lists' tick: any instance, on its schedule, reads every kind's list (a GET per
// shard, never an object LIST) and acts on each entry due before the next tick at its time,
// through the same pass as a timer (objects/io/due.ts: the stored objects read again, the write
// tied to them). So an object whose timer died with its process is acted on at its time by
// whichever instance ticks. One read per tick: an entry written after it waits for the next tick
// (at most a tick's interval late, never early). Ticks at once join the one running
// (pod cleanup's OneLoop); entries done with, or overdue past the horizon, are taken out.
import { dueIn, OneLoop } from '../../cleanup/due/index.js';
import { OBJECT_KINDS } from '../../policy/objects-schema.js';
import { settled, type ObjectDueEntry, type ObjectsDue } from './due.js';

/** How far a tick looks ahead: to the next one (a PingSource fires once a minute). */
const LOOK_AHEAD_MS = 60_000;
/** Kept free before the request's deadline, for the answer. */
const MARGIN_MS = 3_000;

/** What a tick did (a type, not an interface: a target answers it as it is). */
export type ObjectsTickResult = {
  outcome: 'ticked' | 'joined';
  due: number;
  expired: number;
  outcomes: Record<string, number>;
  removed: number;
  failures: { transient: number; refused: number };
};

export class ObjectsTick {
  private readonly flight: OneLoop<ObjectsTickResult>;

  constructor(
    private readonly due: ObjectsDue,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.flight = new OneLoop(0, () => due.h.now());
  }

  async tick(deadline: number): Promise<ObjectsTickResult> {
    const until = Math.min(this.due.h.now() + LOOK_AHEAD_MS, deadline - MARGIN_MS);
    const flight = await this.flight.run(until, (u) => this.loop(u));
    if (flight.joined) return { outcome: 'joined', due: 0, expired: 0, outcomes: {}, removed: 0, failures: { transient: 0, refused: 0 } };
    return flight.answer;
  }

  private async loop(until: number): Promise<ObjectsTickResult> {
    const { h, o } = this.due;
    const read = await Promise.all(OBJECT_KINDS.map(async (kind) => (await this.due.lists[kind].read()).map((e): ObjectDueEntry => ({ ...e, kind }))));
    const found = dueIn(read.flat(), h.now(), until, o.horizonMs);
    const outcomes: Record<string, number> = {};
    const failures = { transient: 0, refused: 0 };
    const done = found.expired.map((e) => e as ObjectDueEntry);
    await Promise.all(
      found.due.map(async (entry) => {
        const e = entry as ObjectDueEntry;
        // This tick acts on it: this instance's timer would only repeat it.
        this.due.timers.clear(e.uid);
        const wait = e.at - h.now();
        if (wait > 0) await this.sleep(wait);
        try {
          const summary = await this.due.pass(e);
          for (const r of summary.results) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
          failures.transient += summary.failures.transient;
          failures.refused += summary.failures.refused;
          if (settled(summary)) done.push(e);
        } catch (err) {
          failures.transient++;
          h.log.warn({ object: `${e.kind} ${e.namespace}/${e.name}`, err: (err as Error)?.message ?? String(err) }, 'objects due: the timed action failed');
        }
      }),
    );
    this.due.forgetListed(done.map((e) => e.uid));
    let removed = 0;
    if (!h.settings.dryRun)
      for (const kind of OBJECT_KINDS) {
        const uids = done.filter((e) => e.kind === kind).map((e) => e.uid);
        if (uids.length) removed += await this.due.lists[kind].remove(uids);
      }
    return { outcome: 'ticked', due: found.due.length, expired: found.expired.length, outcomes, removed, failures };
  }
}
