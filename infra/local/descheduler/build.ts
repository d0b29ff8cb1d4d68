// Builds the descheduler from the Go module proxy (through the wrapper module beside this
// file) into a per-version cache next to the control plane's, once: the defragmentation
// measurement runs its HighNodeUtilization against the same cluster as kube-tidy's plan.
// infra/local/build.ts runs its build on import, so its runner is mirrored here, not imported.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from '../versions.js';

// v0.36.0 requires k8s.io/* v0.36.1: the same minor as the control plane (K8S_VERSION).
export const DESCHEDULER_VERSION = 'v0.36.0';

export function deschedulerBin(): string {
  return join(cacheRoot(), 'descheduler', DESCHEDULER_VERSION, 'bin', 'descheduler');
}

const stamp = () => join(dirname(deschedulerBin()), '..', 'complete.stamp');

export function buildDescheduler(): string {
  const bin = deschedulerBin();
  if (existsSync(bin) && existsSync(stamp())) return bin;
  mkdirSync(dirname(bin), { recursive: true });
  const started = Date.now();
  // Same settings as the control-plane build: no toolchain download, static binary, the
  // committed go.mod/go.sum as they are, and -p 1 because the build shares two cores.
  const env = { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' };
  const args = ['build', '-p', '1', '-trimpath', '-ldflags', '-s -w', '-o', bin, 'sigs.k8s.io/descheduler/cmd/descheduler'];
  console.log(`[descheduler:build] go ${args.join(' ')}`);
  const r = spawnSync('go', args, { cwd: dirname(fileURLToPath(import.meta.url)), env, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`descheduler build failed (exit ${r.status ?? r.signal})`);
  writeFileSync(stamp(), JSON.stringify({ DESCHEDULER_VERSION, builtAt: new Date().toISOString() }) + '\n');
  console.log(`[descheduler:build] done in ${((Date.now() - started) / 1000).toFixed(0)} s: ${bin}`);
  return bin;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildDescheduler();
