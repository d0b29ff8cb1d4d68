// A function as its own process, the way it runs in production: functions-framework's own
// main serving one target. The code is loaded through tsx from the sources (no build step);
// `traced` lines the process writes (see function-host.ts) are collected for the benches.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePorts } from '../harness/ports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FRAMEWORK = `${ROOT}node_modules/@google-cloud/functions-framework/build/src/main.js`;
/** The production entry point (package.json "main", from its source). */
export const FUNCTIONS_ENTRY = `${ROOT}functions/index.ts`;
/** The same functions with their API requests and answers traced. */
export const TRACED_ENTRY = fileURLToPath(new URL('./function-host.ts', import.meta.url));

export type Trace =
  | { trace: 'kube'; t: number; method: string; url: string }
  | { trace: 'deleted'; t: number; pod: string }
  | { trace: 'answer'; t0: number; t: number; method: string; status: number; outcome?: string; pod?: string };

export interface FunctionProcess {
  url: string;
  pid: number;
  traces: Trace[];
  stop(): Promise<void>;
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

export async function startFunctionProcess(target: string, source: string, env: Record<string, string>): Promise<FunctionProcess> {
  const port = (await freePorts(1))[0]!;
  const child = spawn(process.execPath, ['--import', 'tsx', FRAMEWORK, `--target=${target}`, `--port=${port}`, `--source=${source}`], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const traces: Trace[] = [];
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + String(d)).slice(-4000)));
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('{"trace"')) return; // the function's own log lines
    traces.push(JSON.parse(line) as Trace);
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${target} exited at start:\n${stderr}`);
    // A TCP connect, not an HTTP request: sweep runs a whole pass on any request, GET included.
    if (await listening(port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${target} did not start listening:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    traces,
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

/** Starts a function process, runs `work`, stops the process whatever happens. */
export async function withFunction<T>(target: string, source: string, env: Record<string, string>, work: (fn: FunctionProcess) => Promise<T>): Promise<T> {
  const fn = await startFunctionProcess(target, source, env);
  try {
    return await work(fn);
  } finally {
    await fn.stop();
  }
}
