import { z } from 'zod';
import { isTarget, TARGETS } from '../../../functions/index.js';
import { describeIssues } from '../../config/env.js';
import { MaxBodyBytes, RequestDeadlineSeconds } from '../../runtime/config.js';
import { front } from '../../serve/http/front.js';
import { createLogger } from '../../log.js';
import { serveUntilSignal } from './graceful.js';
import { nodeHttpTarget } from '../../serve/http/node-http.js';
import { setupTargets } from './setup.js';

// The production entry point (the image's command, the bundle's entry): one target per
// process, chosen by FUNCTION_TARGET as functions-framework does, served over node:http by
// kube-tidy's own adapter (serve/http/node-http.ts: it reads and parses the body itself, as the
// framework's parsers did, and answers what the framework's app answered) behind the front
// and a server that drains on SIGTERM. No framework, no Express: functions-framework serves
// only processes started by its own main (framework-entry.ts).
// No top-level await: the bundle is CommonJS (see infra/bundle/build.ts).

const ServerEnv = z.object({
  FUNCTION_TARGET: z.string().min(1, 'set FUNCTION_TARGET to the function to serve'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  // Cloud Run allows 10 s between SIGTERM and SIGKILL; Knative gives the revision timeout.
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().positive().default(10),
  MAX_BODY_BYTES: MaxBodyBytes,
  REQUEST_DEADLINE_SECONDS: RequestDeadlineSeconds,
});

/** Set by the bundle's entry (infra/bundle/loader.cjs): whether V8 took the warmed code cache. */
const CODE_CACHE = Symbol.for('kube-tidy.codeCache');

function cannotStart(reason: string): never {
  process.stderr.write(`kube-tidy: cannot start: ${reason}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  const log = createLogger({ name: 'kube-tidy-server' });
  const parsed = ServerEnv.safeParse(process.env);
  if (!parsed.success) cannotStart(describeIssues(parsed.error.issues, 'environment').join('; '));
  const env = parsed.data;
  if (!isTarget(env.FUNCTION_TARGET)) cannotStart(`FUNCTION_TARGET "${env.FUNCTION_TARGET}" is not one of ${Object.keys(TARGETS).join(', ')}`);
  // Reads the policy, the cluster setup and the sender check, and exits 2 when they are bad,
  // before anything listens.
  const { rt, served, auth, warm } = await setupTargets(env.FUNCTION_TARGET);
  const { spec, parts } = served[0]!;
  // Before any body is read, the front checks the sender and the size on headers alone; the
  // adapter then reads the body, bounded as it streams.
  const app = front(nodeHttpTarget(spec, parts, rt, { auth, maxBytes: env.MAX_BODY_BYTES }), {
    auth,
    maxBytes: env.MAX_BODY_BYTES,
    target: env.FUNCTION_TARGET,
    log,
    metrics: rt.metrics,
  });
  const codeCache = (globalThis as Record<symbol, unknown>)[CODE_CACHE];
  const { server } = serveUntilSignal(app, {
    port: env.PORT,
    requestTimeoutMs: (env.REQUEST_DEADLINE_SECONDS + 5) * 1000,
    deadlineMs: env.SHUTDOWN_TIMEOUT_SECONDS * 1000,
    log,
    describe: { target: env.FUNCTION_TARGET, ...(codeCache ? { codeCache } : {}) },
    afterDrain: (ms) => rt.drainEvents(ms),
  });
  // Once listening (loading the client takes the event loop for ~100 ms: listen first), what
  // the first event would pay for starts in the background; that event waits for it.
  if (rt.config.WARM_AT_START) server.once('listening', () => void warm());
}

main().catch((e: unknown) => cannotStart((e as Error).stack ?? String(e)));
