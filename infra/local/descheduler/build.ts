// Builds the descheduler from the Go module proxy (through the wrapper module beside this
// file) into a per-version cache next to the control plane's, once: the defragmentation
// measurement runs its HighNodeUtilization against the same cluster as kube-tidy's plan.
import { execFileSync } from 'node:child_process';
import { cachedGoBuild } from '../go-run.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from '../versions.js';

// v0.36.0 requires k8s.io/* v0.36.1: the same minor as the control plane (K8S_VERSION).
export const DESCHEDULER_VERSION = 'v0.36.0';

export function deschedulerBin(): string {
  return join(cacheRoot(), 'descheduler', DESCHEDULER_VERSION, 'bin', 'descheduler');
}

let moduleDir: string | undefined;

/** The descheduler module's source directory in GOMODCACHE (downloaded through the proxy once). */
export function deschedulerModuleDir(): string {
  moduleDir ??= (
    JSON.parse(
      execFileSync('go', ['mod', 'download', '-json', `sigs.k8s.io/descheduler@${DESCHEDULER_VERSION}`], {
        cwd: dirname(fileURLToPath(import.meta.url)),
        encoding: 'utf8',
        env: { ...process.env, GOTOOLCHAIN: 'local' },
      }),
    ) as { Dir: string }
  ).Dir;
  return moduleDir;
}

export function buildDescheduler(): string {
  const cwd = dirname(fileURLToPath(import.meta.url));
  return cachedGoBuild({ name: 'descheduler', bin: deschedulerBin(), pkg: 'sigs.k8s.io/descheduler/cmd/descheduler', cwd, stamp: { DESCHEDULER_VERSION } });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildDescheduler();
