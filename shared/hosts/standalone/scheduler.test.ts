import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startScheduler } from './scheduler.js';

// The internal schedule's start: a target named in `atStart` gets one tick at once (a new
// leader's podTerminated reads the due list now, not at the next minute); the others wait for
// their cron; a shut fence drops it as it drops any tick.
const log = pino({ level: 'silent' });
// Crons that do not come due while a test runs (once a year): only atStart can tick. A wait
// that long is past setTimeout's 2^31-1 ms, which Node fires at once: before the scheduler
// stepped over it, these crons ticked in a loop (12 runs in 50 ms).
const schedules = { podTerminated: '0 0 1 1 *', sweep: '0 0 1 1 *' };

describe('startScheduler atStart', () => {
  it('ticks the named scheduled targets once at start, and no other', async () => {
    const ran: string[] = [];
    const s = startScheduler({
      schedules,
      targets: ['podTerminated', 'sweep'],
      run: async (target) => (ran.push(target), { status: 200 }),
      log,
      atStart: ['podTerminated', 'evacuation'],
    });
    await new Promise((r) => setTimeout(r, 50));
    await s.stop();
    // evacuation is not scheduled here, sweep not named: only podTerminated, once.
    expect(ran).toEqual(['podTerminated']);
  });

  it('without atStart nothing runs before its cron, and a shut fence drops the start tick', async () => {
    const ran: string[] = [];
    const run = async (target: string) => (ran.push(target), { status: 200 });
    const plain = startScheduler({ schedules, targets: ['podTerminated', 'sweep'], run, log });
    const fenced = startScheduler({ schedules, targets: ['podTerminated'], run, log, fence: () => false, atStart: ['podTerminated'] });
    await new Promise((r) => setTimeout(r, 50));
    await Promise.all([plain.stop(), fenced.stop()]);
    expect(ran).toEqual([]);
  });
});
