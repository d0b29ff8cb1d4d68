// Starting and stopping control-plane processes so that none outlives its cluster.
// Each component runs in its own process group (detached) and its pid is appended to
// <dir>/pids before anything else happens, so every cleanup path (stop(), process exit,
// signals, and the watchdog when the node process dies hard) can find and kill it.
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export interface Proc {
  name: string;
  pid: number;
  logFile: string;
}

export function spawnComponent(dir: string, name: string, bin: string, args: string[], persistent: boolean): Proc {
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const logFile = join(dir, 'logs', `${name}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawn(bin, args, { cwd: dir, detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  if (child.pid === undefined) throw new Error(`could not start ${name} (${bin})`);
  appendFileSync(join(dir, 'pids'), `${child.pid}\n`);
  child.on('error', () => undefined);
  // A persistent cluster (npm run cluster:up) must not keep the CLI's event loop alive.
  if (persistent) child.unref();
  return { name, pid: child.pid, logFile };
}

// The watchdog is a shell loop in its own process group: once the node process that
// started the cluster is gone (even after kill -9), it kills every recorded group and
// removes the cluster's directory. In a forked worker (vitest's forks pool) it also watches
// the parent, the test runner, whose death leaves the worker running for a while.
// (dash's kill takes "-PGID" but no "--".)
const WATCHDOG = `
dir=$1; shift
alive() { for p in "$@"; do kill -0 "$p" 2>/dev/null || return 1; done; }
while alive "$@"; do sleep 1; done
[ -f "$dir/pids" ] || exit 0
for p in $(cat "$dir/pids"); do kill -TERM "-$p" 2>/dev/null; done
sleep 2
for p in $(cat "$dir/pids"); do kill -KILL "-$p" 2>/dev/null; done
rm -rf "$dir"
`;

export function startWatchdog(dir: string): number {
  const watched = [process.pid, ...(process.send ? [process.ppid] : [])].map(String);
  const child = spawn('sh', ['-c', WATCHDOG, 'kube-tidy-watchdog', dir, ...watched], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  if (child.pid === undefined) throw new Error('could not start the watchdog');
  return child.pid;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

export function recordedPids(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'pids'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

// TERM first so etcd and the apiserver shut down cleanly, KILL whatever is left after the grace.
export async function killGroups(pids: number[], graceMs = 2_000): Promise<void> {
  for (const pid of pids) signalGroup(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (pids.some(isAlive) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (const pid of pids.filter(isAlive)) signalGroup(pid, 'SIGKILL');
  while (pids.some(isAlive) && Date.now() < deadline + 2_000) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Synchronous last resort for 'exit' and signal handlers, where nothing can be awaited.
function killGroupsNow(dir: string): void {
  for (const pid of recordedPids(dir)) signalGroup(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}

const liveDirs = new Set<string>();
let hooksInstalled = false;

export function trackForCleanup(dir: string): void {
  liveDirs.add(dir);
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', () => liveDirs.forEach(killGroupsNow));
  // A forked worker whose runner went away loses its IPC channel: its clusters are orphans,
  // and so is the worker itself (vitest's forks would otherwise run on until their tests time out).
  if (process.send) {
    process.once('disconnect', () => {
      liveDirs.forEach(killGroupsNow);
      process.exit(1);
    });
  }
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      liveDirs.forEach(killGroupsNow);
      liveDirs.clear();
      // Keep the default behaviour (terminate) unless someone else handles the signal.
      process.off(signal, onSignal);
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

export function untrack(dir: string): void {
  liveDirs.delete(dir);
}
