// Pod cleanup, wired: the pure part is the policy, the strategies, the evictor gate and the
// plan (shared/{policy,strategies,evictor,selection}); its I/O is io/ (fetch the context a policy
// reads, act through the writer, a full pass as stages and observers); its configuration
// config.ts. Its own rooms: due/ (acting at eligibility) and reports/ (OpenReports), each with
// its own entry. The targets podTerminated, sweep and invoke use only what is exported here.
import type { Runtime } from '../runtime/runtime.js';
import { readCleanupConfig, sweepSettingsOf, type CleanupConfig } from './config.js';
import { handleOf, type CleanupHandle } from './handle.js';

export { decideOne, removeSelected } from './io/one-pod.js';
export { runPass, type PassObserver, type PassOptions, type PassSummary } from './io/pass.js';
export { Carry } from './io/carry.js';
export { failuresOf, type ActResult } from './io/act.js';
export { actShard } from './io/shards.js';
export type { Failures, OlderRemoved, OnePodResult, ShardResult } from './io/results.js';
export { unplannedShard } from './io/shard-plan.js';
export { handleOf, type CleanupHandle, type CleanupReader, type PassSettings, type SweepSettings } from './handle.js';

export interface CleanupParts {
  config: CleanupConfig;
  /** What the I/O takes instead of the runtime: reader, writer, brakes, clock, settings. */
  handle: CleanupHandle;
}

export const cleanupParts = (rt: Runtime): CleanupParts => {
  const config = readCleanupConfig(rt.env);
  return { config, handle: handleOf(rt, sweepSettingsOf(config)) };
};
