// The CLI's `descheduler` command: flags in, the exit code out (command.ts runs it). Exit 2 for
// bad flags or a bad policy with every problem named, as the rest of the CLI; SIGTERM and
// SIGINT stop it as the descheduler stops (a leader gives its Lease up), with 0.
import { KubeConfigError } from '../../kube/config.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import { PolicyError } from '../../policy/errors.js';
import { DESCHEDULER_HELP } from '../cli/help.js';
import { InputError } from '../cli/input.js';
import { runDescheduler } from './command.js';
import { DeschedulerFlagError, parseDeschedulerFlags } from './flags.js';

export interface CommandIo {
  out: (s: string) => void;
  err: (s: string) => void;
  metrics?: MetricsRecorder;
  /** A test's own stop; the program's is SIGTERM/SIGINT. */
  stopSignal?: AbortSignal;
}

export async function deschedulerCommand(argv: string[], io: CommandIo): Promise<number> {
  let flags;
  try {
    flags = parseDeschedulerFlags(argv);
  } catch (e) {
    if (!(e instanceof DeschedulerFlagError)) throw e;
    io.err(`kube-tidy descheduler: ${e.message}\n\n${DESCHEDULER_HELP}`);
    return 2;
  }
  if (flags.help) {
    io.out(DESCHEDULER_HELP);
    return 0;
  }
  const stop = new AbortController();
  const signal = io.stopSignal ?? stop.signal;
  const onSignal = () => stop.abort();
  if (!io.stopSignal) for (const s of ['SIGTERM', 'SIGINT'] as const) process.once(s, onSignal);
  try {
    return await runDescheduler(flags, { err: io.err, stopSignal: signal, ...(io.metrics ? { metrics: io.metrics } : {}) });
  } catch (e) {
    if (e instanceof PolicyError) io.err(`kube-tidy descheduler: invalid policy ${flags.policyConfigFile}:\n${e.message}\n`);
    else if (e instanceof InputError || e instanceof KubeConfigError) io.err(`kube-tidy descheduler: ${e.message}\n`);
    else {
      io.err(`kube-tidy descheduler: ${(e as Error).message}\n`);
      return 1;
    }
    return 2;
  } finally {
    for (const s of ['SIGTERM', 'SIGINT'] as const) process.off(s, onSignal);
  }
}
