import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/env.js';
import { createLogger } from '../log.js';
import type { Runtime } from '../runtime/runtime.js';
import { cleanupParts } from './index.js';

// The targets podTerminated, sweep and invoke are set up with these parts when the process
// starts (hosts/server/setup.ts): the pass's settings come from pod cleanup's own variables, and a
// bad one stops the start naming it.

const log = createLogger({ destination: { write: () => {} }, level: 'silent' });
const runtime = (env: NodeJS.ProcessEnv) =>
  ({ env, config: { PROTECTED_NAMESPACES: ['kube-system', 'ops'], RECORD_EVENTS: false, DRY_RUN: true }, log }) as unknown as Runtime;

describe("pod cleanup's parts", () => {
  it("give the handle pod cleanup's paging, concurrency, budget (in ms) and Events, and the process's namespaces and dry run", () => {
    const { config, handle } = cleanupParts(
      runtime({ SWEEP_PAGE_SIZE: '3', SWEEP_CONCURRENCY: '4', SWEEP_TIME_BUDGET_SECONDS: '5', SWEEP_EVENTS_PER_PASS: '6', SWEEP_SHARD_SIZE: '7' }),
    );
    expect(handle.settings).toEqual({
      pageSize: 3,
      concurrency: 4,
      budgetMs: 5000,
      eventsPerPass: 6,
      protectedNamespaces: ['kube-system', 'ops'],
      recordEvents: false,
      dryRun: true,
    });
    expect(config.SWEEP_SHARD_SIZE).toBe(7);
  });

  it.each(['SWEEP_PAGE_SIZE', 'SWEEP_TIME_BUDGET_SECONDS', 'SWEEP_CONCURRENCY'])('are not built with a zero %s: the error names it', (name) => {
    expect(() => cleanupParts(runtime({ [name]: '0' }))).toThrow(ConfigError);
    expect(() => cleanupParts(runtime({ [name]: '0' }))).toThrow(new RegExp(`${name}: `));
  });
});
