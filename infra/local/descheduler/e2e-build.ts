// Builds the descheduler's own end-to-end tests (sigs.k8s.io/descheduler@DESCHEDULER_VERSION,
// test/e2e) into one test binary, e2e.test, that runs them against kube-tidy
// (test/integration/descheduler-e2e). The module's source is read-only in GOMODCACHE, so it is
// copied to a temporary directory first and our one patch is applied there
// (e2e/run-podlifetime-plugin.patch: the body of runPodLifetimePlugin, plus a new file with the
// runner it calls); every other test file stays as upstream wrote it. Cached once per version
// and patch: the key holds DESCHEDULER_VERSION and a hash of the patch; the stamp is written
// last, so a build cut off half way is never taken for a finished one.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachedGoBuild, isCachedBuild, sourceHash } from '../go-run.js';
import { cacheRoot } from '../versions.js';
import { DESCHEDULER_VERSION, deschedulerModuleDir } from './build.js';

const moduleDir = dirname(fileURLToPath(import.meta.url));
const PATCH = 'e2e/run-podlifetime-plugin.patch';

export function e2eBin(): string {
  return join(cacheRoot(), 'descheduler-e2e', `${DESCHEDULER_VERSION}-${sourceHash(moduleDir, [PATCH])}`, 'bin', 'e2e.test');
}

function run(command: string, args: string[], cwd: string): void {
  // GIT_CEILING_DIRECTORIES: `git apply` in a folder inside some repository would apply relative to that repository's root.
  const result = spawnSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, GIT_CEILING_DIRECTORIES: dirname(cwd) } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd} (exit ${result.status ?? result.signal})`);
}

export function buildE2e(): string {
  const bin = e2eBin();
  if (isCachedBuild(bin)) return bin;
  const src = mkdtempSync(join(tmpdir(), 'kube-tidy-descheduler-e2e-'));
  try {
    cpSync(deschedulerModuleDir(), src, { recursive: true });
    run('chmod', ['-R', 'u+w', src], src); // the module cache's files and folders are read-only
    run('git', ['apply', '-p1', join(moduleDir, PATCH)], src);
    // -mod=mod: the copy's go.mod/go.sum are upstream's; nothing here writes back to ours.
    return cachedGoBuild({
      name: 'descheduler-e2e',
      bin,
      pkg: './test/e2e',
      cwd: src,
      test: true,
      goflags: '-mod=mod',
      stamp: { DESCHEDULER_VERSION, patch: sourceHash(moduleDir, [PATCH]) },
    });
  } finally {
    rmSync(src, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildE2e();
