// A process in an image's root filesystem (in-rootfs.sh under `unshare --mount --pid --fork`):
// the build's RUN steps run this way, and the image tests run the image's own program this
// way, with the user, working directory and environment its OCI config names.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveIn } from './resolve.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'in-rootfs.sh');

export interface InRootfs {
  root: string;
  workdir: string;
  /** uid:gid, numeric. */
  user: string;
  env: Record<string, string>;
  argv: string[];
  readOnly?: boolean;
  /** For a RUN: the layers below (top first) and the directory that becomes the new layer. */
  overlay?: { lower: string[]; upper: string; work: string };
  /** Host path -> path in the root, mounted read-only. */
  binds?: Record<string, string>;
}

function commandLine(o: InRootfs): { args: string[]; cleanup: () => void } {
  const [uid, gid = uid] = o.user.split(':') as [string, string?];
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-rootfs-env-'));
  const envFile = join(dir, 'env');
  writeFileSync(
    envFile,
    Object.entries(o.env)
      .map(([k, v]) => `${k}=${v}\0`)
      .join(''),
  );
  const overlay = o.overlay ? ['--overlay', o.overlay.lower.join(':'), o.overlay.upper, o.overlay.work] : [];
  // Mount points resolved inside the image (its /var/run is a link to /run, which on the host is the host's).
  const inImage = (dst: string) => (o.overlay ? resolveIn(o.overlay.lower, dst) : dst);
  const binds = Object.entries(o.binds ?? {}).flatMap(([src, dst]) => ['--bind', src, inImage(dst)]);
  const mode = o.readOnly ? 'ro' : 'rw';
  const args = ['--mount', '--pid', '--fork', 'bash', SCRIPT, o.root, o.workdir, uid, gid!, mode, envFile, ...overlay, ...binds, '--', ...o.argv];
  return { args, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs to the end; throws with its output when it fails. */
export function runInRootfs(o: InRootfs, timeoutMs = 600_000): string {
  const { args, cleanup } = commandLine(o);
  try {
    const r = spawnSync('unshare', args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`${o.argv.join(' ')} in ${o.root} exited ${r.status ?? r.signal}: ${r.stderr || r.stdout}`.slice(0, 8000));
    return r.stdout;
  } finally {
    cleanup();
  }
}

export interface RootfsProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  /** A signal to the image's program itself (pid 1 of its namespace), as a runtime's stop sends it. */
  signal(sig: NodeJS.Signals): void;
  /** SIGKILL to everything it started. */
  kill(): void;
}

/** The program's pid as the host sees it: the child unshare forked (bash, then the program by exec). */
function innerPid(outer: number): number | undefined {
  try {
    const first = readFileSync(`/proc/${outer}/task/${outer}/children`, 'utf8').trim().split(/\s+/)[0];
    return first ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

/** Starts it in a process group of its own; `onStart` gets its pid (the tests write it to the cluster's pids file, whose groups the harness kills with the cluster). */
export function startInRootfs(o: InRootfs, onStart?: (pid: number) => void): RootfsProcess {
  const { args, cleanup } = commandLine(o);
  const child = spawn('unshare', args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid) onStart?.(child.pid);
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, sig) => {
      cleanup();
      resolve(code ?? (sig ? 128 : null));
    }),
  );
  const kill = (pid: number, sig: NodeJS.Signals | number) => {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  };
  return {
    child,
    output: () => out,
    exited,
    signal: (sig) => {
      const pid = child.pid && innerPid(child.pid);
      if (pid) kill(pid, sig);
    },
    kill: () => child.pid && kill(-child.pid, 'SIGKILL'),
  };
}
