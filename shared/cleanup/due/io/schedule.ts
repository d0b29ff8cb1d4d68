// Pod cleanup at eligibleAt: the event path schedules (a timer here, an entry in the due list),
// a timer or a tick acts through removeSelected, which reads the stored pod and decides again
// (it may have changed; the brakes apply as on any event; DRY_RUN as everywhere). Acting twice
// on one pod (a timer and another instance's tick) is harmless: the write is tied to the stored
// pod, and a pod already gone answers `gone`.
import { removeSelected, type CleanupHandle, type OnePodResult } from '../../index.js';
import { scheduleOf, type Admitted, type DueEntry } from '../core/due.js';
import type { DueList } from './list.js';
import { TickLoop, type TickResult, type TickSettings } from './tick-loop.js';
import type { DueTimers } from './timers.js';

export type { TickResult };

/**
 * Outcomes after which the entry has not served: the brakes deferred the pod, or the write
 * failed; a later tick tries again. Any other (acted on, gone, no longer due, blocked by a
 * budget, which the sweep retries) takes the entry out.
 */
const UNSETTLED: ReadonlySet<string> = new Set(['deferred', 'failed', 'refused']);

/** What the due list reads of pod cleanup's result (cleanup/io/results.ts): whether the entry has served. */
type Acted = Pick<OnePodResult, 'outcome' | 'failures'> & { why?: string };

const settled = (a: Acted): boolean => !UNSETTLED.has(a.outcome) && !a.failures?.transient && !a.failures?.refused;

/** The tick's settings (tick-loop.ts): horizon, look-ahead, margin, poll, DUE_TICK_SENDERS. */
export type DueSettings = TickSettings;

export const DEFAULT_LOOK_AHEAD_MS = 60_000;

/** So the decision's CloudEvent says the pod went at its time, and what acted: a receiver cannot tell it from the event path otherwise. */
const dueScope = (e: DueEntry, by: 'timer' | 'tick') => ({ due: { at: new Date(e.at).toISOString(), by } });
export const DEFAULT_MARGIN_MS = 3_000;

export class Due {
  /** The pods this instance put in the due list, at their time: an event that changes nothing writes nothing. */
  private readonly listed = new Map<string, number>();
  /** The process's one tick loop (tick-loop.ts): concurrent ticks join it instead of each reading the list. */
  private readonly ticks: TickLoop<DueEntry>;

  constructor(
    private readonly h: CleanupHandle,
    readonly timers: DueTimers,
    private readonly list: DueList,
    private readonly s: DueSettings,
    sleep?: (ms: number) => Promise<void>,
    private readonly maxListed = 10_000,
  ) {
    this.ticks = new TickLoop(
      {
        target: 'podTerminated',
        read: async () => (await h.ready(), list.read()),
        claim: (e) => timers.clear(e.uid),
        take: (e) => this.takeOne(e),
        remove: async (done) => {
          for (const e of done) this.listed.delete(e.uid);
          return h.settings.dryRun ? 0 : list.remove(done.map((e) => e.uid));
        },
        now: () => h.now(),
        log: h.log,
      },
      s,
      sleep,
    );
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

  /** Why a tick from `sender` is not taken (DUE_TICK_SENDERS), or undefined (tick-loop.ts). */
  tickRefused(sender: string | undefined): string | undefined {
    return this.ticks.refused(sender);
  }

  /**
   * A tick: the process's one tick loop, or joined to the one running (tick-loop.ts). It holds
   * its request until the next tick, reading the due list every `pollMs` (a GET per shard, never
   * a pod LIST), and acts on each entry due by then at its time, through removeSelected.
   */
  tick(deadline: number): Promise<TickResult> {
    return this.ticks.tick(deadline);
  }

  /** One entry a tick takes, at its time: decided again on the stored pod. */
  private async takeOne(e: DueEntry): Promise<{ outcomes: string[]; settled: boolean; transient?: number; refused?: number }> {
    const answer = await removeSelected(this.h, { namespace: e.namespace, name: e.name, uid: e.uid }, undefined, dueScope(e, 'tick'));
    this.h.log.info(
      { pod: `${e.namespace}/${e.name}`, uid: e.uid, dueAt: new Date(e.at).toISOString(), outcome: answer.outcome, why: answer.why },
      'due: acted at eligibleAt (tick)',
    );
    return { outcomes: [answer.outcome], settled: settled(answer), transient: answer.failures?.transient ?? 0, refused: answer.failures?.refused ?? 0 };
  }
}
