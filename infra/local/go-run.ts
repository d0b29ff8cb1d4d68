import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// How every Go build here runs. GOTOOLCHAIN=local: never download another toolchain behind
// our back. CGO off so the binaries are static and need no C toolchain. -mod=readonly (set by
// the callers' flags or GOFLAGS): the committed go.mod/go.sum are complete, so a build never
// rewrites them in the work tree.
export function runGo(args: string[], cwd: string, log: (message: string) => void, extraEnv: Record<string, string> = {}): void {
  log(`go ${args.join(' ')}`);
  const env = { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', ...extraEnv };
  const result = spawnSync('go', args, { cwd, env, stdio: 'inherit' });
  if (result.status !== 0) {
    throw new Error(`go ${args[0]} failed in ${cwd} (exit ${result.status ?? result.signal})`);
  }
}

/** Whether `bin` and the stamp beside its folder are both there: a finished build. */
export function isCachedBuild(bin: string): boolean {
  return existsSync(bin) && existsSync(join(dirname(bin), '..', 'complete.stamp'));
}

/**
 * `go build` of `pkg` (in the module at `cwd`) into `bin`, once: a stamp beside the binary's
 * folder is written last, so a build cut off half way is never taken for a finished one.
 * `-p` from KUBE_TIDY_GO_PARALLEL (default 1): builds share two cores with whatever else runs.
 * `test: true` compiles the package's tests into `bin` (`go test -c`) instead.
 */
export function cachedGoBuild(o: {
  name: string;
  bin: string;
  pkg: string;
  cwd: string;
  stamp: Record<string, unknown>;
  test?: boolean;
  goflags?: string;
  /** -ldflags (default `-s -w`), e.g. with `-X` for the version a release build sets. */
  ldflags?: string;
}): string {
  const stamp = join(dirname(o.bin), '..', 'complete.stamp');
  if (isCachedBuild(o.bin)) return o.bin;
  mkdirSync(dirname(o.bin), { recursive: true });
  const started = Date.now();
  const verb = o.test ? ['test', '-c'] : ['build'];
  const args = [...verb, '-p', process.env.KUBE_TIDY_GO_PARALLEL ?? '1', '-trimpath', '-ldflags', o.ldflags ?? '-s -w', '-o', o.bin, o.pkg];
  runGo(args, o.cwd, (m) => console.log(`[${o.name}:build] ${m}`), { GOFLAGS: o.goflags ?? '-mod=readonly' });
  const seconds = Math.round((Date.now() - started) / 1000);
  writeFileSync(stamp, JSON.stringify({ ...o.stamp, seconds, builtAt: new Date().toISOString() }) + '\n');
  console.log(`[${o.name}:build] done in ${seconds} s: ${o.bin}`);
  return o.bin;
}

/** A short hash of a wrapper module's sources (`files` under `dir`): part of its cache key, so an edit rebuilds. */
export function sourceHash(dir: string, files: readonly string[]): string {
  const h = createHash('sha256');
  for (const f of files)
    h.update(f)
      .update('\0')
      .update(readFileSync(join(dir, f)))
      .update('\0');
  return h.digest('hex').slice(0, 16);
}
