// Defragmentation's configuration, from the environment, checked at start (shared/config/env.ts).
// Seconds in the environment, milliseconds in the code.
import { z } from 'zod';
import { positiveInt, readEnv, secondsAsMs } from '../config/env.js';

const Schema = z.object({
  /** How long a step waits for an evicted pod's replacement to run before it re-plans without it. */
  DEFRAG_SETTLE_TIMEOUT_SECONDS: secondsAsMs(120),
  /** Pods per LIST page when a step reads the cluster (kubectl's 500). */
  DEFRAG_PAGE_SIZE: positiveInt.max(5000).default(500),
});

export interface DefragConfig {
  settleTimeoutMs: number;
  pageSize: number;
}

export function readDefragConfig(env: NodeJS.ProcessEnv): DefragConfig {
  const e = readEnv(Schema, env);
  return { settleTimeoutMs: e.DEFRAG_SETTLE_TIMEOUT_SECONDS, pageSize: e.DEFRAG_PAGE_SIZE };
}

/** The schema as declared, for the generated reference (docs/reference/environment.md). */
export { Schema as DefragEnv };
