import { http } from '@google-cloud/functions-framework';
import { isTarget, TARGETS } from '../../../functions/index.js';
import type { StartOptions } from '../../runtime/runtime.js';
import { serveTarget } from '../../serve/http/functions-framework.js';
import { setupTargets, type Setup } from './setup.js';

// How a process started by functions-framework registers the target it serves (every target
// when none is chosen, for development): the targets are set up (setup.ts: the runtime as
// their needs say, the sender check, each target's parts; a bad setup exits 2 before anything
// listens), and each is wrapped by the one wrapper's functions-framework adapter (serve/http/functions-framework.ts).
// The production server (server.ts) serves without the framework (serve/http/node-http.ts).

export { isTarget, TARGETS };

/** Registers the targets (one, or all) and returns the setup they share (its warm-up, for the entry). */
export async function registerTargets(target: string | readonly string[] | undefined, opts: Pick<StartOptions, 'writerClients'> = {}): Promise<Setup> {
  const setup = await setupTargets(target, opts);
  for (const { spec, parts } of setup.served) http(spec.name, serveTarget(spec, parts, setup.rt, setup.auth));
  return setup;
}

export const targetNames = (): string[] => Object.keys(TARGETS).filter(isTarget);
