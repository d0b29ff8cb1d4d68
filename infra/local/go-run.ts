import { spawnSync } from 'node:child_process';

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
