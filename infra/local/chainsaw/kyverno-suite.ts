// Where Kyverno's own TTL conformance tests are read from: test/conformance/chainsaw/ttl in the
// Go module proxy's zip of github.com/kyverno/kyverno at a pinned version, unpacked once into the
// Go module cache (read-only there) by `go mod download`. Nothing is copied into this repository:
// the tests run as Kyverno wrote them, from that folder (test/integration/ttl/kyverno-chainsaw).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The newest v1.19 release on the proxy; its ttl folder holds the cases the catalogue lists.
export const KYVERNO_VERSION = 'v1.19.1';

let dir: string | undefined;

/** The folder of Kyverno's TTL chainsaw tests in the Go module cache (downloaded through the proxy on first use, 11 MB). */
export function kyvernoTtlTestsDir(): string {
  dir ??= (() => {
    const out = execFileSync('go', ['mod', 'download', '-json', `github.com/kyverno/kyverno@${KYVERNO_VERSION}`], {
      // Outside any module: the download needs none, and nothing here writes a go.mod or go.sum.
      cwd: tmpdir(),
      encoding: 'utf8',
      env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' },
      maxBuffer: 1 << 20,
    });
    const ttl = join((JSON.parse(out) as { Dir: string }).Dir, 'test', 'conformance', 'chainsaw', 'ttl');
    if (!existsSync(ttl)) throw new Error(`github.com/kyverno/kyverno@${KYVERNO_VERSION} has no ${ttl}`);
    return ttl;
  })();
  return dir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(`[kyverno-ttl-tests] ${kyvernoTtlTestsDir()}`);
