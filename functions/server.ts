import type { RequestListener } from 'node:http';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { z } from 'zod';
import { createLogger } from '../shared/log.js';
import { serveUntilSignal } from './graceful.js';

// The production entry point (the image's command, the bundle's entry): one target per
// process, chosen by FUNCTION_TARGET as functions-framework does, served by the framework's
// own Express app (same body parsing and routing as `functions-framework --target`) behind
// a server that drains on SIGTERM. `getTestServer` is the framework's only public way to
// build that app (`getServer` is not in its exports map); it is the same `getServer` call
// its main makes, with the framework's own request timeout off, as main leaves it too.

const ServerEnv = z.object({
  FUNCTION_TARGET: z.string().min(1, 'set FUNCTION_TARGET to the function to serve'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  // Cloud Run allows 10 s between SIGTERM and SIGKILL; Knative gives the revision timeout.
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().positive().default(10),
});

const log = createLogger({ name: 'kube-tidy-server' });
const parsed = ServerEnv.safeParse(process.env);
if (!parsed.success) {
  process.stderr.write(`kube-tidy: cannot start: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}\n`);
  process.exit(2);
}
const env = parsed.data;

// Imported only now: it reads the policy and connects to the cluster, and exits 2 when the
// setup is bad, before anything listens.
const { TARGETS } = await import('./index.js');
if (!Object.hasOwn(TARGETS, env.FUNCTION_TARGET)) {
  process.stderr.write(`kube-tidy: cannot start: FUNCTION_TARGET "${env.FUNCTION_TARGET}" is not one of ${Object.keys(TARGETS).join(', ')}\n`);
  process.exit(2);
}

const app = getTestServer(env.FUNCTION_TARGET).listeners('request')[0] as RequestListener;
serveUntilSignal(app, { port: env.PORT, deadlineMs: env.SHUTDOWN_TIMEOUT_SECONDS * 1000, log, describe: { target: env.FUNCTION_TARGET } });
