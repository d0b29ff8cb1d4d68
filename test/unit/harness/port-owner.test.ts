// The harness's check that a started function's port is its own (test/harness/port-owner.ts):
// it must tell this process's listener from another process's on the same kind of port, since
// a connect alone cannot (CI once took another target's 400s for podTerminated's).
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ownsPort } from '../../harness/port-owner.js';

const servers: Server[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.close()));

function listen(host: string): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    servers.push(s);
    s.listen(0, host, () => resolve((s.address() as { port: number }).port));
  });
}

describe('ownsPort', () => {
  it('is true for a port this process listens on, over IPv4 and on every address', async () => {
    expect(ownsPort(process.pid, await listen('127.0.0.1'))).toBe(true);
    expect(ownsPort(process.pid, await listen('::'))).toBe(true);
  });

  it('is false for a port another process listens on', async () => {
    const child = spawn(process.execPath, ['-e', "const s=require('net').createServer().listen(0,'127.0.0.1',()=>console.log(s.address().port))"], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const port = await new Promise<number>((resolve) => child.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
      expect(ownsPort(process.pid, port)).toBe(false);
      expect(ownsPort(child.pid!, port)).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('is false for a port nobody listens on, and undefined for a process that is not there', async () => {
    const port = await listen('127.0.0.1');
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
    expect(ownsPort(process.pid, port)).toBe(false);
    expect(ownsPort(2 ** 22 + 7, port)).toBeUndefined();
  });
});
