import { registerTargets } from './register.js';

// The functions-framework entry point (built; the repository root's function.js loads it). One
// build serves every target; `npx functions-framework --target=<name>` (or FUNCTION_TARGET) picks
// one per process. The configuration and the policy are read here, at start (see register.ts), so
// a bad setup stops the process before it serves.

/** The target functions-framework was asked to serve, from its flag or the environment. */
function chosenTarget(): string | undefined {
  const argv = process.argv;
  const i = argv.findIndex((a) => a === '--target' || a.startsWith('--target='));
  if (i >= 0) return argv[i]!.includes('=') ? argv[i]!.split('=')[1] : argv[i + 1];
  return process.env.FUNCTION_TARGET;
}

const { rt, warm } = await registerTargets(chosenTarget());
// The framework listens as soon as this module has loaded, with no hook to wait for: the
// warm-up (the client, the sender check's keys: see warm.ts) starts on the next turn of the
// event loop, after that.
if (rt.config.WARM_AT_START) setImmediate(() => void warm());
