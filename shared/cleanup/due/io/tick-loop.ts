// The due lists' tick, for every family that acts at eligibility (pod cleanup's due list, the
// objects' lists per kind): what makes a tick cheap to send and costly to forge is here once.
// - Who may tick: DUE_TICK_SENDERS, checked before anything is read (`refused`).
// - One loop per process (one-loop.ts): a tick joins the loop already running when that loop
//   looks far enough ahead, so ticks at once (a retry, a forged flood) cost the API server
//   what one tick does.
// - The loop holds its request until the next tick, reading the lists every `pollMs` (a GET per
//   shard, never an object LIST), and acts on each entry due by then at its time.
// - An entry the family decided on (acted, gone, no longer selected, no longer due) leaves the
//   list with the loop's end; only one whose action must be tried again stays.
// The family says how to read its lists, act on one entry and remove entries (`TickFamily`).
import type { Logger } from '../../../log.js';
import { dueIn, type DueEntry } from '../core/due.js';
import { OneLoop } from './one-loop.js';

/** What acting on one entry came to: its outcomes, and whether the entry has served. */
export interface Taken {
  outcomes: readonly string[];
  /** False: the action must be tried again (deferred by the brakes, failed): the entry stays. */
  settled: boolean;
  transient?: number;
  refused?: number;
}

export interface TickFamily<E extends DueEntry> {
  /** The target the ticks are sent to, as refusals name it. */
  target: string;
  /** Every entry of the family's lists (throws when they cannot be read). */
  read(): Promise<E[]>;
  /** This loop will act on the entry (at its time): whatever else would (this process's timer) need not. */
  claim(e: E): void;
  /** Act on one entry, now that its time has come. */
  take(e: E): Promise<Taken>;
  /** Takes these entries out of the lists (nothing in DRY_RUN); how many were there. */
  remove(done: readonly E[]): Promise<number>;
  now(): number;
  log: Logger;
}

export interface TickSettings {
  horizonMs: number;
  /** How far a tick looks ahead: to the next tick (PingSource and Cloud Scheduler fire once a minute). */
  lookAheadMs: number;
  /** Kept free before the request's deadline, for the answer. */
  marginMs: number;
  /** How often the loop reads the lists again while it holds (DUE_POLL_SECONDS). */
  pollMs: number;
  /** The senders whose ticks are taken (DUE_TICK_SENDERS); unset: any the process lets through. */
  tickSenders?: readonly string[];
}

/** What a tick did (a type, not an interface: a target answers it as it is). */
export type TickResult = {
  /** `joined`: a tick already running in this process does the work. */
  outcome: 'ticked' | 'joined';
  why?: string;
  joined?: { since: string; until: string };
  due: number;
  waiting: number;
  expired?: number;
  outcomes: Record<string, number>;
  removed: number;
  reads: number;
  failures?: { transient: number; refused: number };
};

/** Why a tick from `sender` is not taken by `target` (DUE_TICK_SENDERS), or undefined. No sender: a tick of the process's own schedule, which no request brought. */
export function tickRefused(target: string, allowed: readonly string[] | undefined, sender: string | undefined): string | undefined {
  if (!allowed || sender === undefined || allowed.includes(sender)) return undefined;
  return `sender ${JSON.stringify(sender)} may not tick ${target} (DUE_TICK_SENDERS names ${allowed.join(', ')}): nothing was read or done`;
}

export class TickLoop<E extends DueEntry> {
  private readonly flight: OneLoop<TickResult>;

  constructor(
    private readonly f: TickFamily<E>,
    private readonly s: TickSettings,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.flight = new OneLoop(s.pollMs, () => f.now());
  }

  refused(sender: string | undefined): string | undefined {
    return tickRefused(this.f.target, this.s.tickSenders, sender);
  }

  /** A tick: the process's one loop, or joined to the running one, answered at once as `joined`. */
  async tick(deadline: number): Promise<TickResult> {
    const until = Math.min(this.f.now() + this.s.lookAheadMs, deadline - this.s.marginMs);
    const flight = await this.flight.run(until, (u) => this.loop(u));
    if (!flight.joined) return flight.answer;
    const window = { since: new Date(flight.since).toISOString(), until: new Date(flight.until).toISOString() };
    const why = `a tick already running in this process acts on what is due until ${window.until}`;
    return { outcome: 'joined', why, joined: window, due: 0, waiting: 0, outcomes: {}, removed: 0, reads: 0 };
  }

  /** Holds until `until`, reading the lists every `pollMs`; entries done with (or overdue past the horizon) are removed at the end. */
  private async loop(until: number): Promise<TickResult> {
    const run = { outcomes: {} as Record<string, number>, failures: { transient: 0, refused: 0 }, done: new Map<string, E>() };
    const taking = new Map<string, Promise<void>>();
    let waiting = 0;
    let expired = 0;
    let reads = 0;
    for (;;) {
      let entries: E[];
      try {
        entries = await this.f.read();
      } catch (e) {
        // The first read failing fails the tick (503: the scheduler's retry); a later one waits for the next poll.
        if (reads === 0) throw e;
        this.f.log.warn({ err: (e as Error)?.message ?? String(e) }, 'due list: a poll could not read it');
        entries = [];
      }
      reads++;
      const now = this.f.now();
      const found = dueIn(entries, now, until, this.s.horizonMs);
      for (const e of found.expired as E[])
        if (!run.done.has(e.uid)) {
          run.done.set(e.uid, e);
          expired++;
        }
      for (const e of found.due as E[]) if (!taking.has(e.uid)) taking.set(e.uid, this.takeAt(e, run));
      if (entries.length) waiting = entries.length - found.due.length - found.expired.length;
      const next = now + this.s.pollMs;
      if (next >= until) break;
      await this.sleep(next - this.f.now());
    }
    await Promise.all(taking.values());
    const removed = run.done.size ? await this.f.remove([...run.done.values()]) : 0;
    return { outcome: 'ticked', due: taking.size, waiting, expired, outcomes: run.outcomes, removed, reads, failures: run.failures };
  }

  /** One entry, at its time; counted in the loop's answer, and done with unless it must be tried again. */
  private async takeAt(e: E, run: { outcomes: Record<string, number>; failures: { transient: number; refused: number }; done: Map<string, E> }): Promise<void> {
    this.f.claim(e);
    const wait = e.at - this.f.now();
    if (wait > 0) await this.sleep(wait);
    let taken: Taken;
    try {
      taken = await this.f.take(e);
    } catch (err) {
      this.f.log.warn({ entry: `${e.namespace}/${e.name}`, uid: e.uid, err: (err as Error)?.message ?? String(err) }, 'due: the timed action failed');
      taken = { outcomes: ['failed'], settled: false, transient: 1 };
    }
    for (const o of taken.outcomes) run.outcomes[o] = (run.outcomes[o] ?? 0) + 1;
    run.failures.transient += taken.transient ?? 0;
    run.failures.refused += taken.refused ?? 0;
    if (taken.settled) run.done.set(e.uid, e);
  }
}
