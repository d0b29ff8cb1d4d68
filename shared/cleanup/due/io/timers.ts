// In-process timers, one per pod (by uid): an instance that saw a pod's event acts at its
// eligibleAt by itself. A newer event re-arms it, a pod gone or decided clears it; a far time
// is only looked at again at the horizon (core/due.ts armOf). Bounded: one timer more than
// `max` is refused and logged (sampled), the due list and the sweep still cover that pod.
// Every timer is unref'd, so none keeps a process up; `stop()` clears them all (a standalone
// replica that lost its Lease, a test's discarded instance).
import type { Logger } from '../../../log.js';
import { observeDueRefused } from '../../../metrics/observe.js';
import type { MetricsRecorder } from '../../../metrics/recorder.js';
import { logSampler } from '../../../metrics/sampled-log.js';
import { armOf, type DueEntry } from '../core/due.js';

/** The clock the timers run on: the process's by default, a fake one in unit tests. */
export interface TimerClock {
  now(): number;
  set(fn: () => void, ms: number): unknown;
  clear(timer: unknown): void;
}

export const systemClock: TimerClock = {
  now: () => Date.now(),
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/**
 * `E`: what an entry carries beside the pod's (or object's) identity and time; cleanup beyond
 * pods (objects/io/due.ts) keeps the object's kind in it. A timer hands back the entry it was armed with.
 */
export interface DueTimersOptions<E extends DueEntry = DueEntry> {
  /** What a timer does when its pod is due (decide again on the stored pod, act). Its errors are logged, never thrown. */
  act(entry: E): Promise<void>;
  /** Timers at once; one more is refused. */
  max: number;
  /** The furthest a timer is armed: beyond, it fires only to look again. */
  horizonMs: number;
  log: Logger;
  /** Where timers refused are counted: pod cleanup's handle's recorder. */
  metrics: MetricsRecorder;
  clock?: TimerClock;
}

interface Armed<E extends DueEntry> {
  entry: E;
  timer: unknown;
}

export class DueTimers<E extends DueEntry = DueEntry> {
  private readonly armed = new Map<string, Armed<E>>();
  private readonly clock: TimerClock;
  private readonly sampled;
  private stopped = false;
  /** Timers refused because `max` were armed. */
  refused = 0;

  constructor(private readonly o: DueTimersOptions<E>) {
    this.clock = o.clock ?? systemClock;
    this.sampled = logSampler<'full'>({
      perWindow: 5,
      windowMs: 60_000,
      now: () => this.clock.now(),
      summary: (_, suppressed) => o.log.warn({ suppressed, max: o.max }, 'due timers full: more pods not timed (the due list and the sweep cover them)'),
    });
  }

  /**
   * A timer for `entry` (replacing its pod's earlier one): `armed`, `unchanged` (the same time
   * is already armed), `full`, or `stopped`.
   */
  arm(entry: E): 'armed' | 'unchanged' | 'full' | 'stopped' {
    if (this.stopped) return 'stopped';
    const had = this.armed.get(entry.uid);
    if (had && had.entry.at === entry.at && had.entry.name === entry.name && had.entry.namespace === entry.namespace) return 'unchanged';
    if (!had && this.armed.size >= this.o.max) {
      this.refused++;
      observeDueRefused(this.o.metrics, 'timers-full');
      if (this.sampled('full'))
        this.o.log.warn(
          { pod: `${entry.namespace}/${entry.name}`, max: this.o.max },
          'due timers full: this pod is not timed (the due list and the sweep cover it)',
        );
      return 'full';
    }
    if (had) this.clock.clear(had.timer);
    this.schedule(entry);
    return 'armed';
  }

  /** Clears the pod's timer (gone, decided, no longer waiting on time): whether there was one. */
  clear(uid: string): boolean {
    const had = this.armed.get(uid);
    if (!had) return false;
    this.clock.clear(had.timer);
    this.armed.delete(uid);
    return true;
  }

  /** When the pod's timer acts, if one is armed. */
  at(uid: string): number | undefined {
    return this.armed.get(uid)?.entry.at;
  }

  get size(): number {
    return this.armed.size;
  }

  /** Clears every timer; none is armed afterwards. */
  stop(): void {
    this.stopped = true;
    for (const { timer } of this.armed.values()) this.clock.clear(timer);
    this.armed.clear();
  }

  private schedule(entry: E): void {
    const { delayMs, acts } = armOf(entry.at, this.clock.now(), this.o.horizonMs);
    const armed: Armed<E> = { entry, timer: undefined };
    armed.timer = this.clock.set(() => {
      // Replaced or cleared since: that timer is not this one.
      if (this.armed.get(entry.uid) !== armed) return;
      if (!acts) return this.schedule(entry);
      this.armed.delete(entry.uid);
      this.o
        .act(entry)
        .catch((e: unknown) =>
          this.o.log.warn({ pod: `${entry.namespace}/${entry.name}`, err: (e as Error)?.message ?? String(e) }, 'due: the timed action failed'),
        );
    }, delayMs);
    this.armed.set(entry.uid, armed);
  }
}
