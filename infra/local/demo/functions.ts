// The functions as a user runs them: separate processes started with functions-framework
// from the built package, one target each. Their JSON log lines are handed to `onLine`.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePorts } from '../../../test/harness/ports.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface FunctionProcess {
  target: string;
  url: string;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

export async function startFunction(target: string, env: Record<string, string>, onLine: (entry: Record<string, unknown>) => void): Promise<FunctionProcess> {
  const port = (await freePorts(1))[0]!;
  const child = spawn(process.execPath, [`${ROOT}/node_modules/@google-cloud/functions-framework/build/src/main.js`, `--target=${target}`, `--port=${port}`], {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      onLine({ target, ...JSON.parse(line) });
    } catch {
      // functions-framework prints a plain banner line at start.
    }
  });
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${target} exited at start:\n${stderr}`);
    try {
      await fetch(url, { method: 'GET', signal: AbortSignal.timeout(1000) });
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${target} did not start listening:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    target,
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      children.delete(child);
    },
  };
}
