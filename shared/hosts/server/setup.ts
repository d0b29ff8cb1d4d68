import { TARGETS, type TargetName } from '../../../functions/index.js';
import { ConfigError } from '../../config/env.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import { PolicyError } from '../../policy/errors.js';
import { startRuntime, type Runtime, type StartOptions } from '../../runtime/runtime.js';
import type { SenderAuth } from '../../serve/http/auth.js';
import { senderAuthOf } from '../../serve/http/senders.js';
import type { TargetSpec } from '../../serve/target.js';
import { warmUp } from './warm.js';

// A process's targets set up, with no transport: the runtime started as their needs say, each
// target's parts built. A bad setup makes the process exit 2 with the reason, before anything
// listens or watches. register.ts serves them over HTTP; the standalone program calls them in
// process (standalone/dispatch.ts). The sender check and the warm-up are built here too, for
// the HTTP entries (server.ts, framework-entry.ts): the runtime knows nothing of senders.

/** A target and its parts for this process. */
export interface Served<P = unknown> {
  spec: TargetSpec<P>;
  parts: P;
}

/** A process's setup: what every transport of its targets shares. */
export interface Setup {
  rt: Runtime;
  served: Served[];
  /** Who may send this process requests (serve/http/senders.ts): the HTTP adapters and the front check it. */
  auth: SenderAuth;
  /** The warm-up at start (warm.ts): the HTTP entries call it once they listen (WARM_AT_START). */
  warm(): Promise<void>;
}

/** Sets up the targets (one, a list for the standalone process, or all) and the runtime they share. */
export async function setupTargets(
  target: string | readonly string[] | undefined,
  { writerClients, metrics }: Pick<StartOptions, 'writerClients'> & { metrics?: MetricsRecorder } = {},
): Promise<Setup> {
  const names = (Object.keys(TARGETS) as TargetName[]).filter((n) => !target || (typeof target === 'string' ? n === target : target.includes(n)));
  try {
    const specs = (await Promise.all(names.map((n) => TARGETS[n]()))) as TargetSpec<unknown>[];
    // Only a process serving targets that all load the client on demand starts without it.
    const lazyKube = specs.every((s) => s.needs.cluster === 'on-demand');
    const rt = await startRuntime(
      process.env,
      // The standalone program builds its recorder before the runtime: its /metrics is up first.
      metrics ? { metrics } : {},
      {
        needsPolicy: specs.some((s) => s.needs.policy),
        lazyKube,
        ...(writerClients ? { writerClients } : {}),
      },
    );
    // A bad SENDER_AUTH stops every process as it did when the runtime read it, standalone too.
    const auth = senderAuthOf(rt);
    rt.log.info({ senders: auth.summary }, 'sender authentication ready');
    const served: Served[] = [];
    for (const spec of specs) served.push({ spec, parts: await spec.setup(rt) });
    return { rt, served, auth, warm: warmUp(rt, auth, { lazyKube }) };
  } catch (e) {
    const known =
      e instanceof ConfigError || e instanceof PolicyError || (e as Error).name === 'KubeConfigError' || (e as Error).name === 'SenderAuthConfigError';
    process.stderr.write(`kube-tidy: cannot start: ${known ? (e as Error).message : (e as Error).stack}\n`);
    process.exit(2);
  }
}
