import { http } from '@google-cloud/functions-framework';
import { ConfigError } from '../shared/runtime/config.js';
import { PolicyError } from '../shared/policy/errors.js';
import { startRuntime, type Runtime } from '../shared/runtime/runtime.js';

// Every function kube-tidy serves, and how a process registers the one it serves. Both entry
// points use this: functions/index.ts (functions-framework's --source) and functions/server.ts
// (the production bundle). Only the chosen target's module is loaded: a process serving
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

export type TargetName = keyof typeof TARGETS;

export const isTarget = (name: string): name is TargetName => Object.hasOwn(TARGETS, name);

/**
 * Reads the configuration and the policy, then registers `target` (every target when none is
 * chosen) with functions-framework. A bad setup makes the process exit 2 with the reason,
 * before anything listens.
 */
export async function registerTargets(target: string | undefined): Promise<void> {
  const names = (Object.keys(TARGETS) as TargetName[]).filter((n) => !target || n === target);
  try {
    // Only podTerminated answers events that need no cluster request; the other targets always
    // use the cluster, so startRuntime loads (and checks) their client at start.
    const runtime = await startRuntime(process.env, {}, { lazyKube: names.length === 1 && names[0] === 'podTerminated' });
    for (const name of names) http(name, ((await TARGETS[name]()) as Factory)(runtime));
  } catch (e) {
    const known = e instanceof ConfigError || e instanceof PolicyError || (e as Error).name === 'KubeConfigError';
    process.stderr.write(`kube-tidy: cannot start: ${known ? (e as Error).message : (e as Error).stack}\n`);
    process.exit(2);
  }
}
