// The internal schedule: each scheduled function gets a tick (what the Knative path's
// PingSource sends, handed over in process: dispatch.ts) when its cron says, with the
// bridge's delivery rules and retries (bridge/deliver.ts). A tick that finds the previous one still running is skipped, as a
// PingSource's Trigger to a max-scale-1, concurrency-1 Service would queue it. A tick that
// comes while the fence is shut (the Lease not known to be held) is dropped, never sent.
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
}): Scheduler {
  const now = o.now ?? Date.now;
  const abort = new AbortController();
  const timers = new Map<string, NodeJS.Timeout>();
  const inFlight = new Map<string, Promise<void>>();

  const tick = async (target: string) => {
    const r = await deliverWith((signal) => o.run(target, signal), {
      signal: abort.signal,
      policy: { retries: 2, baseDelayMs: 1_000, maxDelayMs: 5_000, timeoutMs: 10 * 60_000 },
    });
    o.log[r.outcome === 'delivered' ? 'info' : 'warn']({ target, outcome: r.outcome, attempts: r.attempts, status: r.status }, 'scheduled run');
  };

  const arm = (target: string, spec: string) => {
    const schedule = parseSchedule(spec);
    const at = nextRun(schedule, now());
    timers.set(
      target,
      setTimeout(
        () => {
          if (abort.signal.aborted) return;
          if (o.fence && !o.fence()) o.log.warn({ target }, 'scheduled run dropped: the Lease is not known to be held');
          else if (inFlight.has(target)) o.log.warn({ target }, 'scheduled run skipped: the previous one is still running');
          else
            inFlight.set(
              target,
              tick(target).finally(() => inFlight.delete(target)),
            );
          arm(target, spec);
        },
        Math.max(0, at - now()),
      ),
    );
  };

  for (const target of o.targets) {
    const spec = o.schedules[target];
    if (spec) arm(target, spec);
  }
  o.log.info({ schedules: Object.fromEntries(o.targets.filter((t) => o.schedules[t]).map((t) => [t, o.schedules[t]])) }, 'schedules armed');

  return {
    stop: async ({ abandon = false } = {}) => {
      for (const t of timers.values()) clearTimeout(t);
      if (abandon) abort.abort();
      await Promise.allSettled(inFlight.values());
      abort.abort();
    },
  };
}
