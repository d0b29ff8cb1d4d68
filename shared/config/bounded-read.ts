// Reading a file a user names, up to a size. The size stat reports cannot be trusted: /dev/zero,
// a FIFO or /proc files say 0 and never end (`--policy-config-file /dev/zero` read until the
// process died of memory). So the file is read in chunks and the read stops one byte past the cap.
import { closeSync, openSync, readSync } from 'node:fs';

const CHUNK = 64 * 1024;

/** A file longer than its cap: refused without reading on. */
export class FileTooLargeError extends Error {
  constructor(
    readonly file: string,
    readonly maxBytes: number,
  ) {
    super(`larger than ${describeBytes(maxBytes)}: not read past that`);
    this.name = 'FileTooLargeError';
  }
}

/** "1 MiB", "512 MiB", "1000 bytes". */
export function describeBytes(n: number): string {
  if (n >= 1 << 20 && n % (1 << 20) === 0) return `${n / (1 << 20)} MiB`;
  if (n >= 1 << 10 && n % (1 << 10) === 0) return `${n / (1 << 10)} KiB`;
  return `${n} bytes`;
}

/** The file's text (UTF-8), `-` for standard input; throws FileTooLargeError past `maxBytes`, fs errors as they are. */
export function readFileCapped(file: string, maxBytes: number): string {
  const fd = file === '-' ? 0 : openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - total));
      const n = readChunk(fd, buf);
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > maxBytes) throw new FileTooLargeError(file, maxBytes);
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    if (fd !== 0) closeSync(fd);
  }
}

/** One read; standard input opened non-blocking (a pipe from some shells) is waited on, as readFileSync does not. */
function readChunk(fd: number, buf: Buffer): number {
  for (;;) {
    try {
      return readSync(fd, buf, 0, buf.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}
