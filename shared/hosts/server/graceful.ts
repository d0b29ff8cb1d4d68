import { setLongTimeout } from '../../config/long-timeout.js';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Logger } from '../../log.js';

// Serving with a drain. functions-framework's own main exits on SIGTERM at once (its issue
// #704), cutting off a delete or eviction half done and making the bridge resend it. Here a
// stop refuses new work (503, which Knative and the bridge retry elsewhere), lets the
// requests already running finish until a deadline, and only then lets the process exit.

export interface DrainResult {
  /** True when every in-flight request finished before the deadline. */
  drained: boolean;
  /** Requests still running when the deadline cut them off. */
  cutOff: number;
  ms: number;
}

export interface GracefulServer {
  server: Server;
  inFlight(): number;
  /** Idempotent: a second signal gets the same drain. */
  drain(deadlineMs: number): Promise<DrainResult>;
}

export function gracefulServer(app: RequestListener): GracefulServer {
  let inFlight = 0;
  let draining: Promise<DrainResult> | undefined;
  let settle: (() => void) | undefined;

  const server = createServer((req, res) => {
    if (draining) {
      // A request on a kept-alive connection after the stop: refuse it and close the
      // connection, so the client's retry goes to another instance.
      res.writeHead(503, { connection: 'close', 'retry-after': '1', 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'shutting down; retry' }));
      return;
    }
    inFlight++;
    res.once('close', () => {
      inFlight--;
      if (draining) {
        server.closeIdleConnections();
        if (inFlight === 0) settle?.();
      }
    });
    app(req, res);
  });
  // functions-framework's main disables the socket timeout too: a sweep may take a minute.
  server.setTimeout(0);

  const drain = (deadlineMs: number): Promise<DrainResult> => {
    draining ??= new Promise<DrainResult>((resolve) => {
      const started = Date.now();
      const finish = (drained: boolean) => {
        timer.clear();
        const cutOff = inFlight;
        if (!drained) server.closeAllConnections();
        resolve({ drained, cutOff, ms: Date.now() - started });
      };
      // SHUTDOWN_TIMEOUT_SECONDS has no upper bound: a deadline past 24.8 days is waited in steps.
      const timer = setLongTimeout(() => finish(false), deadlineMs);
      settle = () => finish(true);
      server.close();
      server.closeIdleConnections();
      if (inFlight === 0) settle();
    });
    return draining;
  };

  return { server, inFlight: () => inFlight, drain };
}

export interface ServeOptions {
  port: number;
  deadlineMs: number;
  /** A request whose body has not arrived by then is cut off (a slow sender holds no worker). */
  requestTimeoutMs?: number;
  log: Logger;
  /** Fields for the "serving" line (the target). */
  describe?: Record<string, unknown>;
  /**
   * Once the requests are done, before the exit: what the process still owes the cluster (its
   * Event series' last counts, runtime.ts `drainEvents`), within what is left of the deadline.
   */
  afterDrain?: (deadlineMs: number) => Promise<unknown>;
}

/**
 * Listens, and on SIGTERM or SIGINT drains and exits: 0 when every request finished, 1 when
 * the deadline cut some off. A second signal falls back to Node's default (exit at once).
 */
export function serveUntilSignal(app: RequestListener, opts: ServeOptions): GracefulServer {
  const served = gracefulServer(app);
  if (opts.requestTimeoutMs) {
    served.server.requestTimeout = opts.requestTimeoutMs;
    served.server.headersTimeout = Math.min(opts.requestTimeoutMs, 30_000);
  }
  served.server.listen(opts.port, () => {
    const address = served.server.address();
    const port = typeof address === 'object' && address ? address.port : opts.port;
    opts.log.info({ ...opts.describe, port }, 'serving');
  });
  const stop = async (signal: string) => {
    opts.log.info({ signal, inFlight: served.inFlight() }, 'stopping: refusing new requests, draining');
    const result = await served.drain(opts.deadlineMs);
    if (result.drained) opts.log.info(result, 'drained');
    else opts.log.error(result, 'shutdown deadline reached: in-flight requests cut off');
    await opts.afterDrain?.(Math.max(0, opts.deadlineMs - result.ms)).catch((e: unknown) => opts.log.error({ err: e }, 'after the drain'));
    // Let pino write its last line before exiting.
    opts.log.flush(() => process.exit(result.drained ? 0 : 1));
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  return served;
}
