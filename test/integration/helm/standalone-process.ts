// The standalone process (shared/hosts/standalone/main.ts) as a child process, the way the chart's
// Deployment runs it, with /readyz polled to see whether it leads.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePorts } from '../../harness/ports.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface Standalone {
  name: string;
  /** Where it serves /healthz, /readyz and /metrics on 127.0.0.1. */
  port: number;
  child: ChildProcess;
  log: string[];
  exited: Promise<number | null>;
  /** undefined when it does not answer. */
  leader(): Promise<boolean | undefined>;
}

export async function startStandalone(name: string, env: Record<string, string>): Promise<Standalone> {
  const port = (await freePorts(1))[0]!;
  const child = spawn(process.execPath, ['--import', 'tsx', 'shared/hosts/standalone/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env, POD_NAME: name, PORT: String(port), NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  child.stdout!.on('data', (d) => log.push(String(d)));
  child.stderr!.on('data', (d) => log.push(String(d)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  process.once('exit', () => child.kill('SIGKILL'));
  return {
    name,
    port,
    child,
    log,
    exited,
    leader: async () => {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/readyz`);
        return ((await r.json()) as { leader: boolean }).leader;
      } catch {
        return undefined;
      }
    },
  };
}
