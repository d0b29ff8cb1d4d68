import { http } from '@google-cloud/functions-framework';
import { isTarget, TARGETS, type TargetName } from '../../functions/index.js';
import { ConfigError } from '../config/env.js';
import { PolicyError } from '../policy/errors.js';
import { startRuntime, type Runtime, type StartOptions } from '../runtime/runtime.js';
import { serveTarget } from './handle.js';
import type { TargetSpec } from './target.js';

// How a process registers the target it serves (every target when none is chosen, for
// development) with functions-framework: the runtime is started as the targets' needs say,
// each target's parts are set up, and each is wrapped by the one wrapper (handle.ts). A bad
// setup makes the process exit 2 with the reason, before anything listens.

export { isTarget, TARGETS };

/**
 * Registers the targets (one, a list for the standalone process, or all) and returns the
 * runtime they share (server.ts puts its front on it).
 */
export async function registerTargets(
  target: string | readonly string[] | undefined,
  { writerClients }: Pick<StartOptions, 'writerClients'> = {},
): Promise<Runtime> {
  const names = (Object.keys(TARGETS) as TargetName[]).filter((n) => !target || (typeof target === 'string' ? n === target : target.includes(n)));
  try {
    const specs = (await Promise.all(names.map((n) => TARGETS[n]()))) as TargetSpec<unknown>[];
    const runtime = await startRuntime(
      process.env,
      {},
      {
        needsPolicy: specs.some((s) => s.needs.policy),
        // Only a process serving targets that all load the client on demand starts without it.
        lazyKube: specs.every((s) => s.needs.cluster === 'on-demand'),
        ...(writerClients ? { writerClients } : {}),
      },
    );
    for (const spec of specs) http(spec.name, serveTarget(spec, await spec.setup(runtime), runtime));
    return runtime;
  } catch (e) {
    const known =
      e instanceof ConfigError || e instanceof PolicyError || (e as Error).name === 'KubeConfigError' || (e as Error).name === 'SenderAuthConfigError';
    process.stderr.write(`kube-tidy: cannot start: ${known ? (e as Error).message : (e as Error).stack}\n`);
    process.exit(2);
  }
}

export const targetNames = (): string[] => Object.keys(TARGETS).filter(isTarget);
