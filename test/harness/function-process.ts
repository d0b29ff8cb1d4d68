// A function as its own process, the way it runs in production: functions-framework's own
// main serving one target, from a TypeScript source through tsx (tests, benches) or from the
// built package (the demo). Every stdout line goes to `onLine` (log lines, bench traces).
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePorts } from './ports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FRAMEWORK = `${ROOT}node_modules/@google-cloud/functions-framework/build/src/main.js`;
/** The functions-framework entry point from its source (package.json "main" is its build). */
export const FUNCTIONS_SOURCE = `${ROOT}shared/serve/framework-entry.ts`;
/** The same, built (`npm run build`): what a user runs. */
export const FUNCTIONS_BUILT = `${ROOT}dist/shared/serve/framework-entry.js`;

export interface FunctionProcess {
  target: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
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

/** `source` is a .ts file (run through tsx) or built JavaScript. */
export async function startFunctionProcess(target: string, source: string, env: Record<string, string>, opts: StartOptions = {}): Promise<FunctionProcess> {
  const port = (await freePorts(1))[0]!;
  const loader = source.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...loader, FRAMEWORK, `--target=${target}`, `--port=${port}`, `--source=${source}`], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + String(d)).slice(-4000)));
  if (opts.onLine) createInterface({ input: child.stdout }).on('line', opts.onLine);
  else child.stdout.resume();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${target} exited at start:\n${stderr}`);
    // A TCP connect, not an HTTP request: no function should see a request it did not ask for.
    if (await listening(port)) break;
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
