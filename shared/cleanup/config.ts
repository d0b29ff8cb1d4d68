// Pod cleanup's own setting (the policy, paging and budgets are every process's: runtime/config.ts).
import { z } from 'zod';
import { readEnv } from '../config/env.js';

const Schema = z.object({
  /** Bearer token that lets `invoke` run; without it, invoke only plans. */
  INVOKE_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
});

export type CleanupConfig = z.output<typeof Schema>;

export const readCleanupConfig = (env: NodeJS.ProcessEnv): CleanupConfig => readEnv(Schema, env);
