// A function as its own process, the way it runs in production: the image's entry, SERVER_ENTRY
// (startServerProcess, through tsx) or the production bundle built from it (startBundleProcess:
// what the demos and `npm run serve` run), or functions-framework's own main serving one target
// (startFunctionProcess: the Cloud Functions entry), from TypeScript through tsx or built.
// Every stdout line goes to `onLine` (log lines, bench traces).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePorts } from './ports.js';
import { ownsPort } from './port-owner.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The production bundle's entry (`npm run bundle`), as the image runs it. */
export const BUNDLE_ENTRY = `${ROOT}dist/bundle/server.cjs`;
const FRAMEWORK = `${ROOT}node_modules/@google-cloud/functions-framework/build/src/main.js`;
/** The functions-framework entry point from its source (its build is what the root's function.js loads). */
export const FUNCTIONS_SOURCE = `${ROOT}shared/hosts/server/framework-entry.ts`;
/** The same, built (`npm run build`): what a user runs. */
export const FUNCTIONS_BUILT = `${ROOT}dist/shared/hosts/server/framework-entry.js`;
/**
 * The production entry (the image's command): FUNCTION_TARGET and PORT from the environment,
 * the sender check, body limits and graceful shutdown in front of the node:http adapter (serve/http/node-http.ts).
 */
export const SERVER_ENTRY = `${ROOT}shared/hosts/server/server.ts`;

export interface FunctionProcess {
  target: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** A process started from the production entry: more to observe than through the framework's main. */
export interface ServerProcess extends FunctionProcess {
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends a signal; `stop()` is SIGTERM, then SIGKILL after 5 s. */
  kill(signal: NodeJS.Signals): void;
  /** The resident set size now, in bytes (Linux /proc); 0 once it exited. */
  rss(): number;
  /** The last 4 KB of stderr. */
  stderr(): string;
  /** Every stdout line so far (the JSON log lines), newest last, at most 2,000. */
  lines(): string[];
  /** Resolves once the warm-up at start has ended (its `warmed up` or `warm-up ... failed` line). */
  warmed(timeoutMs?: number): Promise<void>;
}

export interface StartOptions {
  /** Each line the process writes to stdout, as written. */
  onLine?: (line: string) => void;
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The port handed to a child was bound by another process first: the child could not listen. */
class PortTakenError extends Error {
  constructor(target: string, port: number) {
    super(`${target}: port ${port} was taken by another process before it could listen`);
  }
}

/** `start` on a free port, on another one when a process took the first before the child bound it. */
async function onFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start((await freePorts(1))[0]!);
    } catch (e) {
      if (!(e instanceof PortTakenError) || attempt >= 5) throw e;
    }
  }
}

/** `source` is a .ts file (run through tsx) or built JavaScript. */
export async function startFunctionProcess(target: string, source: string, env: Record<string, string>, opts: StartOptions = {}): Promise<FunctionProcess> {
  const loader = source.endsWith('.ts') ? ['--import', 'tsx'] : [];
  return onFreePort((port) => launch(target, port, [...loader, FRAMEWORK, `--target=${target}`, `--port=${port}`, `--source=${source}`], env, opts));
}

/**
 * `target` served as in production: SERVER_ENTRY through tsx with FUNCTION_TARGET and PORT in
 * the environment (nothing on the command line), so the body limits, deadlines and SIGTERM
 * handling under test are the image's own. `env` adds to (and may unset, with '') the parent's.
 */
export async function startServerProcess(target: string, env: Record<string, string>, opts: StartOptions = {}): Promise<ServerProcess> {
  return onFreePort((port) => launch(target, port, ['--import', 'tsx', SERVER_ENTRY], { ...env, FUNCTION_TARGET: target, PORT: String(port) }, opts));
}

/**
 * `target` served by the production bundle (built first: `npm run bundle`), FUNCTION_TARGET and
 * PORT in the environment, as the image and `npm run serve` run it: what a user runs locally is
 * what ships.
 */
export async function startBundleProcess(target: string, env: Record<string, string>, opts: StartOptions = {}): Promise<ServerProcess> {
  return onFreePort((port) => launch(target, port, [BUNDLE_ENTRY], { ...env, FUNCTION_TARGET: target, PORT: String(port) }, opts));
}

async function launch(target: string, port: number, args: string[], env: Record<string, string>, opts: StartOptions): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + String(d)).slice(-4000)));
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    if (lines.length > 2000) lines.splice(0, lines.length - 2000);
    opts.onLine?.(line);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const url = `http://127.0.0.1:${port}/`;
  // A hang guard, not a measure: the adversary suite starts six of these at once, each compiling
  // through tsx, and on two busy cores (load 10+) that took longer than the 30 s this once was.
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) {
      if (/EADDRINUSE/.test(stderr)) throw new PortTakenError(target, port);
      throw new Error(`${target} exited at start:\n${stderr}`);
    }
    // A TCP connect, not an HTTP request: no function should see a request it did not ask for.
    // And the listener must be the child's: another process may have bound the port first (port-owner.ts).
    if ((await listening(port)) && ownsPort(child.pid!, port) !== false) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${target} did not start listening:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    target,
    url,
    pid: child.pid!,
    exited,
    kill: (signal) => void child.kill(signal),
    rss: () => {
      try {
        const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
        return kb ? Number(kb) * 1024 : 0;
      } catch {
        return 0;
      }
    },
    stderr: () => stderr,
    lines: () => lines,
    warmed: async (timeoutMs = 120_000) => {
      const end = Date.now() + timeoutMs;
      while (!lines.some((l) => /"msg":"(warmed up|warm-up at start failed)/.test(l))) {
        if (Date.now() > end || child.exitCode !== null) throw new Error(`${target}: no warm-up line within ${timeoutMs} ms:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      children.delete(child);
    },
  };
}
