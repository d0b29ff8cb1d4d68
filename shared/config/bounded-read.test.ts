import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeBytes, FileTooLargeError, readFileCapped } from './bounded-read.js';

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-bounded-'));

describe('readFileCapped', () => {
  it('reads a file up to its cap, the cap included, as UTF-8', () => {
    const f = join(dir, 'exact');
    writeFileSync(f, 'é'.repeat(512));
    expect(readFileCapped(f, 1024)).toBe('é'.repeat(512));
  });

  it('refuses one byte past the cap', () => {
    const f = join(dir, 'over');
    writeFileSync(f, 'x'.repeat(1025));
    expect(() => readFileCapped(f, 1024)).toThrow(FileTooLargeError);
    expect(() => readFileCapped(f, 1024)).toThrow('larger than 1 KiB: not read past that');
  });

  it('stops in an endless file that stat says is empty (/dev/zero)', () => {
    expect(() => readFileCapped('/dev/zero', 1 << 20)).toThrow('larger than 1 MiB');
  });

  it('stops in a FIFO a writer never closes', async () => {
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const writer = spawn('sh', ['-c', `exec yes policy > '${fifo}'`], { stdio: 'ignore' });
    try {
      // The open waits for the writer, as a mounted FIFO's reader would.
      expect(() => readFileCapped(fifo, 64 * 1024)).toThrow(FileTooLargeError);
    } finally {
      writer.kill('SIGKILL');
      await new Promise((r) => writer.once('exit', r));
    }
  });

  it('says sizes as a person reads them', () => {
    expect([describeBytes(1 << 20), describeBytes(500 * (1 << 20)), describeBytes(1000)]).toEqual(['1 MiB', '500 MiB', '1000 bytes']);
  });
});
