// Where the descheduler module the wrapper requires (v0.36.0) sits in the Go module cache, as
// `go list -m` in the wrapper module answers: its charts/descheduler is the descheduler's own
// Helm chart, its test/e2e its own end-to-end tests. The oracle's build (npm run
// conformance:build) has downloaded it; -mod=readonly never changes go.mod or go.sum.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const moduleDir = dirname(fileURLToPath(import.meta.url));

export function deschedulerModuleDir(): string {
  const env = { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly' };
  const dir = execFileSync('go', ['list', '-m', '-f', '{{.Dir}}', 'sigs.k8s.io/descheduler'], { cwd: moduleDir, env, encoding: 'utf8' }).trim();
  // Empty when the module is not in the cache yet.
  if (dir === '') throw new Error('sigs.k8s.io/descheduler is not in the Go module cache: run npm run conformance:build');
  return dir;
}

export const deschedulerChartDir = (): string => join(deschedulerModuleDir(), 'charts', 'descheduler');
