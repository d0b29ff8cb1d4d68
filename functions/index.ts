import { http } from '@google-cloud/functions-framework';
import { ConfigError } from '../shared/runtime/config.js';
import { PolicyError } from '../shared/policy/errors.js';
import { startRuntime } from '../shared/runtime/runtime.js';
import { KubeConfigError } from '../shared/kube/index.js';
import { defrag } from './defrag.js';
import { evacuation } from './evacuation.js';
import { invoke } from './invoke.js';
import { jobDeleted } from './job-deleted.js';
import { orphanSweep } from './orphan-sweep.js';
import { podTerminated } from './pod-terminated.js';
import { sweep } from './sweep.js';

// The functions-framework entry point (package.json "main"). One build serves every target;
// `npx functions-framework --target=<name>` picks one per process. The runtime (config,
// policy, cluster) is read here, at start, so a bad setup stops the process before it serves.

export const TARGETS = { podTerminated, sweep, invoke, jobDeleted, orphanSweep, defrag, evacuation } as const;

let runtime;
try {
  runtime = await startRuntime();
} catch (e) {
  const known = e instanceof ConfigError || e instanceof PolicyError || e instanceof KubeConfigError;
  process.stderr.write(`kube-tidy: cannot start: ${known ? (e as Error).message : (e as Error).stack}\n`);
  process.exit(2);
}
for (const [name, make] of Object.entries(TARGETS)) http(name, make(runtime));
