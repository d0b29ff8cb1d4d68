// Builds chainsaw, the runner of Kyverno's conformance tests, from its Go module
// (github.com/kyverno/chainsaw@CHAINSAW_VERSION) into a per-version cache outside the work tree;
// test/integration/ttl/kyverno-chainsaw.test.ts runs Kyverno's TTL tests with it against kube-tidy.
// v0.2.12 was built with Go 1.23 and does not compile with Go 1.26 as released: its runner hands
// testing.MainStart a TestDeps without the ModulePath method later Go releases ask for. So, as
// infra/local/descheduler/e2e-build.ts does, the module's source (read-only in GOMODCACHE) is
// copied to a temporary directory and our one patch (go-testdeps.patch: that method) applied
// there; nothing else changes. Cached once per version and patch, the stamp written last.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachedGoBuild, isCachedBuild, sourceHash } from '../go-run.js';
import { cacheRoot } from '../versions.js';

// The runner Kyverno v1.19.1's conformance tests name in their schemas (chainsaw.kyverno.io
// v1alpha1 tests, a v1alpha2 configuration). Its go.mod says go 1.23.0.
export const CHAINSAW_VERSION = 'v0.2.12';

const here = dirname(fileURLToPath(import.meta.url));
const PATCH = 'go-testdeps.patch';

export const chainsawBin = (): string => join(cacheRoot(), `chainsaw-${CHAINSAW_VERSION}`, sourceHash(here, [PATCH]), 'bin', 'chainsaw');

/** chainsaw's module in GOMODCACHE, downloaded through the proxy on first use. */
function moduleDir(): string {
  const out = execFileSync('go', ['mod', 'download', '-json', `github.com/kyverno/chainsaw@${CHAINSAW_VERSION}`], {
    cwd: tmpdir(),
    encoding: 'utf8',
    env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' },
  });
  return (JSON.parse(out) as { Dir: string }).Dir;
}

function run(command: string, args: string[], cwd: string): void {
  // GIT_CEILING_DIRECTORIES: `git apply` in a folder inside some repository would apply relative to that repository's root.
  const result = spawnSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, GIT_CEILING_DIRECTORIES: dirname(cwd) } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd} (exit ${result.status ?? result.signal})`);
}

export function buildChainsaw(): string {
  const bin = chainsawBin();
  if (isCachedBuild(bin)) return bin;
  const src = mkdtempSync(join(tmpdir(), 'kube-tidy-chainsaw-'));
  try {
    cpSync(moduleDir(), src, { recursive: true });
    run('chmod', ['-R', 'u+w', src], src); // the module cache's files and folders are read-only
    run('git', ['apply', '-p1', join(here, PATCH)], src);
    return cachedGoBuild({
      name: 'chainsaw',
      bin,
      pkg: '.',
      cwd: src,
      // -mod=mod: the copy's go.mod/go.sum are upstream's; nothing here writes back to ours.
      goflags: '-mod=mod',
      // chainsaw's release builds set its version this way; without it `chainsaw version` says "(devel)".
      ldflags: `-s -w -X github.com/kyverno/chainsaw/pkg/version.BuildVersion=${CHAINSAW_VERSION}`,
      stamp: { CHAINSAW_VERSION, patch: sourceHash(here, [PATCH]) },
    });
  } finally {
    rmSync(src, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    buildChainsaw();
  } catch (error) {
    console.error(`[chainsaw:build] ${(error as Error).message}`);
    process.exit(1);
  }
}
