// MultiKueue cleanup against three real control planes (manager + two workers). One file
// so the three clusters start once; the cases live in the modules below, by theme.
import { afterAll, beforeAll } from 'vitest';
import { startEnv, type Env } from './env.js';
import { cascadeTests } from './cascade-cases.js';
import { sweepTests } from './sweep-cases.js';
import { outageTests } from './outage-cases.js';
import { credentialTests } from './credential-cases.js';
import { dryRunTests } from './dry-run-cases.js';
import { dryRunProcessTests } from './dry-run-process-cases.js';

let env: Env | undefined;
const get = (): Env => {
  if (!env) throw new Error('clusters not started');
  return env;
};

beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => {
  await env?.stop();
});

cascadeTests(get);
sweepTests(get);
dryRunProcessTests(get);
outageTests(get);
dryRunTests(get);
// Last: it reads every log line the cases above wrote.
credentialTests(get);
