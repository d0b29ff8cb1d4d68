import { http } from '@google-cloud/functions-framework';
import { ConfigError } from '../shared/runtime/config.js';
import { PolicyError } from '../shared/policy/errors.js';
import { startRuntime, type Runtime } from '../shared/runtime/runtime.js';

// The functions-framework entry point (package.json "main"). One build serves every target;
// `npx functions-framework --target=<name>` (or FUNCTION_TARGET) picks one per process. The
// configuration and the policy are read here, at start, so a bad setup stops the process
// before it serves. Only the chosen target's module is loaded: a process serving
// podTerminated never evaluates the MultiKueue, evacuation or defrag code.

type Factory = (rt: Runtime) => Parameters<typeof http>[1];

export const TARGETS = {
  podTerminated: () => import('./pod-terminated.js').then((m) => m.podTerminated),
  sweep: () => import('./sweep.js').then((m) => m.sweep),
  invoke: () => import('./invoke.js').then((m) => m.invoke),
  jobDeleted: () => import('./job-deleted.js').then((m) => m.jobDeleted),
  orphanSweep: () => import('./orphan-sweep.js').then((m) => m.orphanSweep),
  defrag: () => import('./defrag.js').then((m) => m.defrag),
  evacuation: () => import('./evacuation.js').then((m) => m.evacuation),
} as const satisfies Record<string, () => Promise<Factory>>;

/** The target functions-framework was asked to serve, from its flag or the environment. */
function chosenTarget(): string | undefined {
  const argv = process.argv;
  const i = argv.findIndex((a) => a === '--target' || a.startsWith('--target='));
  if (i >= 0) return argv[i]!.includes('=') ? argv[i]!.split('=')[1] : argv[i + 1];
  return process.env.FUNCTION_TARGET;
}

const target = chosenTarget();
const names = (Object.keys(TARGETS) as (keyof typeof TARGETS)[]).filter((n) => !target || n === target);
try {
  // Only podTerminated answers events that need no cluster request; the other targets always
  // use the cluster, so their client is loaded (and checked) at start.
  const runtime = await startRuntime(process.env, {}, { lazyKube: names.length === 1 && names[0] === 'podTerminated' });
  for (const name of names) {
    const make = (await TARGETS[name]()) as Factory;
    if (name !== 'podTerminated') await runtime.kubeReady();
    http(name, make(runtime));
  }
} catch (e) {
  const known = e instanceof ConfigError || e instanceof PolicyError || (e as Error).name === 'KubeConfigError';
  process.stderr.write(`kube-tidy: cannot start: ${known ? (e as Error).message : (e as Error).stack}\n`);
  process.exit(2);
}
