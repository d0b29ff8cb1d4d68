// The internal schedule: each scheduled function gets a tick (what the Knative path's
// PingSource sends, handed over in process: dispatch.ts) when its cron says, with the
// bridge's delivery rules and retries (bridge/deliver.ts). A tick that finds the previous one still running is skipped, as a
// PingSource's Trigger to a max-scale-1, concurrency-1 Service would queue it. A tick that
// comes while the fence is shut (the Lease not known to be held) is dropped, never sent.
import { setLongTimeout, type LongTimeout } from '../../config/long-timeout.js';
import { deliverWith, type Attempt } from '../bridge/deliver.js';
import type { Logger } from '../../log.js';
import { nextRun, parseSchedule } from './core/schedule.js';

export interface Scheduler {
  /** Stops scheduling and waits for the ticks in flight; `abandon`: aborts them first (no retries). */
  stop(opts?: { abandon?: boolean }): Promise<void>;
}

export function startScheduler(o: {
  schedules: Record<string, string>;
  targets: readonly string[];
  /** One attempt at one tick (dispatch.ts), answered with a status. */
  run: (target: string, signal?: AbortSignal) => Promise<Attempt>;
  log: Logger;
  now?: () => number;
  fence?: () => boolean;
  /**
   * Scheduled targets that also get one tick as soon as the schedules are armed: a new leader's
   * podTerminated reads the due list at once instead of at the next minute, so what the last
   * leader scheduled is not acted on late. The same skip-while-running rule applies.
   */
  atStart?: readonly string[];
}): Scheduler {
  const now = o.now ?? Date.now;
  const abort = new AbortController();
  const timers = new Map<string, LongTimeout>();
  const inFlight = new Map<string, Promise<void>>();

  const tick = async (target: string) => {
    const r = await deliverWith((signal) => o.run(target, signal), {
      signal: abort.signal,
      policy: { retries: 2, baseDelayMs: 1_000, maxDelayMs: 5_000, timeoutMs: 10 * 60_000 },
    });
    o.log[r.outcome === 'delivered' ? 'info' : 'warn']({ target, outcome: r.outcome, attempts: r.attempts, status: r.status }, 'scheduled run');
  };

  const fire = (target: string) => {
    if (abort.signal.aborted) return;
    if (o.fence && !o.fence()) o.log.warn({ target }, 'scheduled run dropped: the Lease is not known to be held');
    else if (inFlight.has(target)) o.log.warn({ target }, 'scheduled run skipped: the previous one is still running');
    else
      inFlight.set(
        target,
        tick(target).finally(() => inFlight.delete(target)),
      );
  };

  const arm = (target: string, spec: string) => {
    // A monthly or yearly cron is further than setTimeout holds (2^31-1 ms, ~24.8 days, fired at
    // once past that): setLongTimeout reaches it in steps, firing only when it is due.
    timers.set(
      target,
      setLongTimeout(
        () => {
          if (abort.signal.aborted) return;
          fire(target);
          arm(target, spec);
        },
        Math.max(0, nextRun(parseSchedule(spec), now()) - now()),
      ),
    );
  };

  for (const target of o.targets) {
    const spec = o.schedules[target];
    if (spec) arm(target, spec);
  }
  o.log.info({ schedules: Object.fromEntries(o.targets.filter((t) => o.schedules[t]).map((t) => [t, o.schedules[t]])) }, 'schedules armed');
  for (const target of o.atStart ?? []) if (o.schedules[target] && o.targets.includes(target)) fire(target);

  return {
    stop: async ({ abandon = false } = {}) => {
      for (const t of timers.values()) t.clear();
      if (abandon) abort.abort();
      await Promise.allSettled(inFlight.values());
      abort.abort();
    },
  };
}
