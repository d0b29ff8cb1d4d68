// Builds the descheduler from the Go module proxy (through the wrapper module beside this
// file) into a per-version cache next to the control plane's, once: the defragmentation
// measurement runs its HighNodeUtilization against the same cluster as kube-tidy's plan.
import { runGo } from '../go-run.js';
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
  // -p 1: the build shares two cores with whatever else runs.
  const args = ['build', '-p', '1', '-trimpath', '-ldflags', '-s -w', '-o', bin, 'sigs.k8s.io/descheduler/cmd/descheduler'];
  runGo(args, dirname(fileURLToPath(import.meta.url)), (m) => console.log(`[descheduler:build] ${m}`), { GOFLAGS: '-mod=readonly' });
  writeFileSync(stamp(), JSON.stringify({ DESCHEDULER_VERSION, builtAt: new Date().toISOString() }) + '\n');
  console.log(`[descheduler:build] done in ${((Date.now() - started) / 1000).toFixed(0)} s: ${bin}`);
  return bin;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildDescheduler();
