// Acting at eligibility, wired: the pure rule is core/due.ts (schedule or not, what a tick
// takes, shards, entries); its I/O is io/ (the timers, the due list, acting through pod
// cleanup's removeSelected); its configuration config.ts. podTerminated uses only what is
// exported here: its event path schedules, its timers and its ticks act.
import type { CleanupHandle } from '../index.js';
import { readDueConfig, type DueConfig } from './config.js';
import { DueList } from './io/list.js';
import { DEFAULT_LOOK_AHEAD_MS, DEFAULT_MARGIN_MS, Due } from './io/schedule.js';
import { DueTimers, type TimerClock } from './io/timers.js';

export { Due } from './io/schedule.js';
export { DueList } from './io/list.js';
export { DueTimers, systemClock, type TimerClock } from './io/timers.js';
export { readDueConfig, type DueConfig } from './config.js';
export { dueIn, scheduleOf, type DueEntry } from './core/due.js';
export { OneLoop } from './io/one-loop.js';
export { TickLoop, tickRefused, type Taken, type TickFamily, type TickResult, type TickSettings } from './io/tick-loop.js';
export { DEFAULT_LOOK_AHEAD_MS, DEFAULT_MARGIN_MS } from './io/schedule.js';

/** The due parts of one process: one set of timers, shared by every event and tick it takes. */
export function dueOf(h: CleanupHandle, config: DueConfig, clock?: TimerClock): Due {
  const horizonMs = config.DUE_HORIZON_SECONDS * 1000;
  // The list's client is the handle's, usable once h.ready() resolved (every caller awaits it first).
  const list = new DueList(
    {
      readNamespacedConfigMap: (req) => h.reader.core.readNamespacedConfigMap(req),
    },
    () => h.writer(),
    { namespace: config.DUE_NAMESPACE, shards: config.DUE_SHARDS, capacity: config.DUE_SHARD_CAPACITY, metrics: h.metrics },
  );
  let due: Due | undefined = undefined;
  const timers = new DueTimers({
    act: async (entry) => void (await due!.act(entry)),
    max: config.DUE_TIMERS_MAX,
    horizonMs,
    log: h.log,
    metrics: h.metrics,
    ...(clock ? { clock } : {}),
  });
  due = new Due(
    h,
    timers,
    list,
    {
      horizonMs,
      lookAheadMs: DEFAULT_LOOK_AHEAD_MS,
      marginMs: DEFAULT_MARGIN_MS,
      pollMs: config.DUE_POLL_SECONDS * 1000,
      ...(config.DUE_TICK_SENDERS ? { tickSenders: config.DUE_TICK_SENDERS } : {}),
    },
    undefined,
    config.DUE_TIMERS_MAX,
  );
  return due;
}

export const dueParts = (h: CleanupHandle, env: NodeJS.ProcessEnv): Due => dueOf(h, readDueConfig(env));
