// Starting a kube-tidy server process and waiting for its "serving" log line: what warm.cjs
// does for each target, and what the bundle, image and cold-start checks do.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ServingLine {
  port: number;
  target?: string;
  /** Per bundle file: accepted, rejected or none (the bundle's entry sets it). */
  codeCache?: Record<string, string>;
}

export interface ServerProcess {
  child: ChildProcess;
  /** The "serving" line; rejects, with what the process wrote to stderr, if it exits first. */
  serving: Promise<ServingLine>;
  exited: Promise<number | null>;
  stderr(): string;
}

/** Runs `node args...` with exactly `env` (plus PATH), stdout read as JSON log lines until the serving line, drained after it. */
export function startServer(node: string, args: string[], env: Record<string, string>, cwd?: string): ServerProcess {
  const child = spawn(node, args, { cwd, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += String(d)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const serving = new Promise<ServingLine>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (l) => {
      let line: { msg?: string; message?: string } & ServingLine;
      try {
        line = JSON.parse(l) as typeof line;
      } catch {
        return; // not a log line
      }
      // pino's msg, or message where the log is shaped for Google Cloud Logging.
      if ((line.msg ?? line.message) !== 'serving') return;
      resolve(line);
      // Past it, the log is drained unread: a storm's bench read every line of it (a JSON.parse
      // of each answer's line) on the cores the process it measured shares. Closing pauses the
      // stream; a paused pipe would block the process's next write, so it flows on, unread.
      lines.close();
      child.stdout!.resume();
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} before serving: ${stderr}`)));
  });
  serving.catch(() => undefined); // callers that only wait for the exit need not handle it
  return { child, serving, exited, stderr: () => stderr };
}
