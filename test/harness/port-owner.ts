// Whether a process is the one listening on a loopback port (Linux /proc): the harness hands a
// child a port that was free a moment before, and in a full run another process (another test
// file's server, a control plane's component) may bind it first. A TCP connect then succeeds
// against the wrong listener, and the child, which failed to bind, is taken for ready: CI once
// saw every event of a fuzz answered 400 by another target, then refused once that one stopped.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The socket inodes listening on `port` (state 0A, LISTEN), over IPv4 and IPv6. */
function listeningInodes(port: number): Set<string> {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      if (f.length > 9 && f[1]!.endsWith(`:${hex}`) && f[3] === '0A') inodes.add(f[9]!);
    }
  }
  return inodes;
}

/** Whether `pid` holds a socket listening on `port`; undefined where /proc cannot say (not Linux). */
export function ownsPort(pid: number, port: number): boolean | undefined {
  const inodes = listeningInodes(port);
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return undefined;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m && inodes.has(m[1]!)) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}
