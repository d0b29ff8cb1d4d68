// The `kube-tidy` command as a process, run from its source through tsx (as `npx kube-tidy`
// runs the built one), its output collected. `killAfterMs`: the command and its process group
// (a credential plugin it started) are killed if it runs that long, so a hang fails a test
// instead of stalling the run.
import { spawn } from 'node:child_process';

export const CLI_SOURCE = 'shared/hosts/cli/main.ts';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The CLI's JSON lines on stdout, parsed. */
export const jsonLines = (r: Ran): Record<string, unknown>[] =>
  r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

export function runCli(args: readonly string[], o: { killAfterMs?: number; env?: Record<string, string> } = {}): Promise<Ran> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', CLI_SOURCE, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: o.killAfterMs !== undefined,
    ...(o.env ? { env: { ...process.env, ...o.env } } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const killer =
    o.killAfterMs === undefined
      ? undefined
      : setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            // already gone
          }
        }, o.killAfterMs);
  // With a kill timer the exit is what is timed (a plugin left running must not hold the answer).
  return new Promise((resolve) =>
    child.on(o.killAfterMs === undefined ? 'close' : 'exit', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    }),
  );
}
