import { http } from '@google-cloud/functions-framework';
import { isTarget, TARGETS } from '../../functions/index.js';
import type { Runtime, StartOptions } from '../runtime/runtime.js';
import { serveTarget } from './handle.js';
import { setupTargets } from './setup.js';

// How a process registers the target it serves (every target when none is chosen, for
// development) with functions-framework: the targets are set up (setup.ts: the runtime as
// their needs say, each target's parts; a bad setup exits 2 before anything listens), and
// each is wrapped by the one wrapper's HTTP adapter (handle.ts).

export { isTarget, TARGETS };

/** Registers the targets (one, or all) and returns the runtime they share (server.ts puts its front on it). */
export async function registerTargets(target: string | readonly string[] | undefined, opts: Pick<StartOptions, 'writerClients'> = {}): Promise<Runtime> {
  const { rt, served } = await setupTargets(target, opts);
  for (const { spec, parts } of served) http(spec.name, serveTarget(spec, parts, rt));
  return rt;
}

export const targetNames = (): string[] => Object.keys(TARGETS).filter(isTarget);
