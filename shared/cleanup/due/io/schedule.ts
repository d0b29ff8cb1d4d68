// Pod cleanup at eligibleAt: the event path schedules (a timer here, an entry in the due list),
// a timer or a tick acts through removeSelected, which reads the stored pod and decides again
// (it may have changed; the brakes apply as on any event; DRY_RUN as everywhere). Acting twice
// on one pod (a timer and another instance's tick) is harmless: the write is tied to the stored
// pod, and a pod already gone answers `gone`.
import { removeSelected, type CleanupHandle, type Failures, type OnePodResult } from '../../index.js';
import { dueIn, scheduleOf, type Admitted, type DueEntry } from '../core/due.js';
import type { DueList } from './list.js';
import { OneLoop } from './one-loop.js';
import type { DueTimers } from './timers.js';

/**
 * Outcomes after which the entry has not served: the brakes deferred the pod, or the write
 * failed; a later tick tries again. Any other (acted on, gone, no longer due, blocked by a
 * budget, which the sweep retries) takes the entry out.
 */
const UNSETTLED: ReadonlySet<string> = new Set(['deferred', 'failed', 'refused']);

/** What the due list reads of pod cleanup's result (cleanup/io/results.ts): whether the entry has served. */
type Acted = Pick<OnePodResult, 'outcome' | 'failures'> & { why?: string };

const settled = (a: Acted): boolean => !UNSETTLED.has(a.outcome) && !a.failures?.transient && !a.failures?.refused;

export interface DueSettings {
  horizonMs: number;
  /** How far a tick looks ahead: to the next tick (PingSource and Cloud Scheduler fire once a minute). */
  lookAheadMs: number;
  /** Kept free before the request's deadline, for the answer. */
  marginMs: number;
  /** How often a tick reads the due list again while it holds (DUE_POLL_SECONDS). */
  pollMs: number;
  /** The senders whose ticks are taken (DUE_TICK_SENDERS); unset: any the process lets through. */
  tickSenders?: readonly string[];
}

export const DEFAULT_LOOK_AHEAD_MS = 60_000;

/** So the decision's CloudEvent says the pod went at its time, and what acted: a receiver cannot tell it from the event path otherwise. */
const dueScope = (e: DueEntry, by: 'timer' | 'tick') => ({ due: { at: new Date(e.at).toISOString(), by } });
export const DEFAULT_MARGIN_MS = 3_000;

/** What a tick did (the due list's own result; a target answers it as it is). */
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
  failures?: Failures;
};

export class Due {
  /** The pods this instance put in the due list, at their time: an event that changes nothing writes nothing. */
  private readonly listed = new Map<string, number>();
  /** The process's one tick loop: concurrent ticks join it instead of each reading the list. */
  private readonly flight: OneLoop<TickResult>;

  constructor(
    private readonly h: CleanupHandle,
    readonly timers: DueTimers,
    private readonly list: DueList,
    private readonly s: DueSettings,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
    private readonly maxListed = 10_000,
  ) {
    this.flight = new OneLoop(s.pollMs, () => h.now());
  }

  /**
   * After an event's decision for a pod: `eligibleAt` arms its timer and (within the horizon,
   * outside DRY_RUN) puts its entry in the due list; no eligibleAt (decided, gone, no longer
   * waiting on time) clears both. Answers the time scheduled, when one is.
   */
  async onDecision(pod: Omit<DueEntry, 'at'>, eligibleAt?: string): Promise<{ scheduled?: string; listed?: string }> {
    const schedule = scheduleOf(eligibleAt, this.h.now(), this.s.horizonMs);
    if (!schedule) {
      await this.forget(pod.uid);
      return {};
    }
    const entry = { ...pod, at: schedule.at };
    const armed = this.timers.arm(entry);
    if (schedule.kind !== 'list') return {};
    let listed: string | undefined;
    if (!this.h.settings.dryRun && this.listed.get(pod.uid) !== schedule.at) {
      try {
        await this.h.ready();
        listed = await this.list.put(entry);
        if (listed === 'full')
          this.h.log.warn(
            { pod: `${pod.namespace}/${pod.name}` },
            'due list shard full: this pod is not listed (a timer, the sweep and a later event cover it)',
          );
        // Remembered as far as the timers go (their bound): past it, a repeated event only re-reads its shard.
        else if (this.listed.has(pod.uid) || this.listed.size < this.maxListed) this.listed.set(pod.uid, schedule.at);
      } catch (e) {
        // The entry is what covers this instance's death; its timer and the sweep still cover the pod, so the event is not failed for it.
        listed = 'failed';
        this.h.log.warn({ pod: `${pod.namespace}/${pod.name}`, err: (e as Error)?.message ?? String(e) }, 'due list: the entry could not be written');
      }
    }
    // Scheduled when something will act then: this instance's timer, or any instance's tick.
    const scheduled = armed === 'armed' || armed === 'unchanged' || this.listed.has(pod.uid);
    return { ...(scheduled ? { scheduled: new Date(schedule.at).toISOString() } : {}), ...(listed ? { listed } : {}) };
  }

  /** The pod needs no timer or entry any more: cleared, and its entry removed if this instance listed it. */
  async forget(uid: string): Promise<void> {
    this.timers.clear(uid);
    if (!this.listed.delete(uid) || this.h.settings.dryRun) return;
    try {
      await this.h.ready();
      await this.list.remove([uid]);
    } catch (e) {
      // Left in the list: a tick finds the pod gone or not due, and takes it out then.
      this.h.log.warn({ uid, err: (e as Error)?.message ?? String(e) }, 'due list: the entry could not be removed');
    }
  }

  /** After the event path acted on a pod: its timer and entry have served, unless the action must be tried again. */
  async settle(uid: string, answer: Acted): Promise<void> {
    if (settled(answer)) await this.forget(uid);
  }

  /**
   * A sweep's pods that become due within the horizon, listed so that a tick acts on each at its
   * time: a pod that produced no event (it existed before the bridge, or only its age changes)
   * is then not left to the next sweep. Entries already there as they are cost nothing to write;
   * nothing is written in DRY_RUN. No timers: this instance's ticks, or any other's, act.
   */
  async listSoon(entries: readonly DueEntry[]): Promise<Admitted | undefined> {
    const now = this.h.now();
    const soon = entries.filter((e) => e.at > now && e.at - now <= this.s.horizonMs);
    if (this.h.settings.dryRun || !soon.length) return undefined;
    await this.h.ready();
    const answer = await this.list.putAll(soon);
    if (answer.full)
      this.h.log.warn({ refused: answer.full }, 'due list shards full: some pods a sweep saw due soon are not listed (the next sweep covers them)');
    return answer;
  }

  /** Every timer cleared (the process stops: a standalone replica that lost its Lease). */
  stop(): void {
    this.timers.stop();
  }

  /** A timer fired: decide again on the stored pod and act; the entry goes once it has served. */
  async act(entry: DueEntry): Promise<OnePodResult> {
    const answer = await removeSelected(this.h, { namespace: entry.namespace, name: entry.name, uid: entry.uid }, undefined, dueScope(entry, 'timer'));
    this.h.log.info(
      { pod: `${entry.namespace}/${entry.name}`, uid: entry.uid, dueAt: new Date(entry.at).toISOString(), outcome: answer.outcome, why: answer.why },
      'due: acted at eligibleAt',
    );
    await this.settle(entry.uid, answer);
    return answer;
  }

  /**
   * Why a tick from `sender` is not taken (DUE_TICK_SENDERS), or undefined. No sender: a tick of
   * the process's own schedule (standalone), which no request brought.
   */
  tickRefused(sender: string | undefined): string | undefined {
    const allowed = this.s.tickSenders;
    if (!allowed || sender === undefined || allowed.includes(sender)) return undefined;
    return `sender ${JSON.stringify(sender)} may not tick podTerminated (DUE_TICK_SENDERS names ${allowed.join(', ')}): nothing was read or done`;
  }

  /**
   * A tick: the process's one tick loop (OneLoop), or joined to the one running when that loop
   * looks far enough ahead, answered at once as `joined` with the running loop's window. Ticks
   * at once (a retry, a forged flood) then cost the API server what one tick does.
   */
  async tick(deadline: number): Promise<TickResult> {
    const until = Math.min(this.h.now() + this.s.lookAheadMs, deadline - this.s.marginMs);
    const flight = await this.flight.run(until, (u) => this.loop(u));
    if (!flight.joined) return flight.answer;
    const window = { since: new Date(flight.since).toISOString(), until: new Date(flight.until).toISOString() };
    return {
      outcome: 'joined',
      why: `a tick already running in this process acts on what is due until ${window.until}`,
      joined: window,
      due: 0,
      waiting: 0,
      outcomes: {},
      removed: 0,
      reads: 0,
    };
  }

  /**
   * The tick loop: holds its request until `until` (the next tick), reading the due list every
   * `pollMs` (a GET per shard, never a pod LIST), and acts on each entry due by then at its
   * time. So an entry written after the loop began (an instance that scheduled a pod and then
   * died) waits at most `pollMs` past its time. Entries it acted on, found gone or no longer
   * due, or overdue past the horizon are removed.
   */
  private async loop(until: number): Promise<TickResult> {
    await this.h.ready();
    const outcomes: Record<string, number> = {};
    const failures = { transient: 0, refused: 0 };
    const taking = new Map<string, Promise<void>>();
    const done = new Set<string>();
    let waiting = 0;
    let expired = 0;
    let reads = 0;
    for (;;) {
      let entries: DueEntry[];
      try {
        entries = await this.list.read();
      } catch (e) {
        // The first read failing fails the tick (503: the scheduler's retry); a later one waits for the next poll.
        if (reads === 0) throw e;
        this.h.log.warn({ err: (e as Error)?.message ?? String(e) }, 'due list: a poll could not read it');
        entries = [];
      }
      reads++;
      const now = this.h.now();
      const found = dueIn(entries, now, until, this.s.horizonMs);
      for (const e of found.expired)
        if (!done.has(e.uid)) {
          done.add(e.uid);
          expired++;
        }
      for (const e of found.due) if (!taking.has(e.uid)) taking.set(e.uid, this.takeAt(e, outcomes, failures, done));
      if (entries.length) waiting = entries.length - found.due.length - found.expired.length;
      const next = now + this.s.pollMs;
      if (next >= until) break;
      await this.sleep(next - this.h.now());
    }
    await Promise.all(taking.values());
    for (const uid of done) this.listed.delete(uid);
    const removed = done.size && !this.h.settings.dryRun ? await this.list.remove(done) : 0;
    return { outcome: 'ticked', due: taking.size, waiting, expired, outcomes, removed, reads, failures };
  }

  /** One entry a tick takes: at its time, through removeSelected; counted in the tick's answer. */
  private async takeAt(e: DueEntry, outcomes: Record<string, number>, failures: { transient: number; refused: number }, done: Set<string>): Promise<void> {
    // This tick acts on it: a timer of this instance for the same pod would only repeat it.
    this.timers.clear(e.uid);
    const wait = e.at - this.h.now();
    if (wait > 0) await this.sleep(wait);
    let answer: Acted;
    try {
      answer = await removeSelected(this.h, { namespace: e.namespace, name: e.name, uid: e.uid }, undefined, dueScope(e, 'tick'));
    } catch (err) {
      this.h.log.warn({ pod: `${e.namespace}/${e.name}`, err: (err as Error)?.message ?? String(err) }, 'due: the timed action failed');
      answer = { outcome: 'failed', failures: { transient: 1, refused: 0 } };
    }
    this.h.log.info(
      { pod: `${e.namespace}/${e.name}`, uid: e.uid, dueAt: new Date(e.at).toISOString(), outcome: answer.outcome, why: answer.why },
      'due: acted at eligibleAt (tick)',
    );
    outcomes[answer.outcome] = (outcomes[answer.outcome] ?? 0) + 1;
    failures.transient += answer.failures?.transient ?? 0;
    failures.refused += answer.failures?.refused ?? 0;
    if (settled(answer)) done.add(e.uid);
  }
}
