// Builds Helm (v4) from the Go module proxy into a per-version cache outside the work tree,
// as infra/local/build.ts does for the control plane. `go install pkg@version` resolves Helm's
// own go.mod and go.sum (verified against the checksum database), so no wrapper module is
// needed. The stamp is written last: a build cut off half way is never taken for a finished one.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runGo } from '../local/go-run.js';
import { HELM_VERSION, helmBin, helmBinDir, helmStamp } from './version.js';

export function buildHelm(): string {
  if (existsSync(helmBin()) && existsSync(helmStamp())) return helmBin();
  mkdirSync(helmBinDir(), { recursive: true });
  const started = Date.now();
  // Helm's Makefile sets its version the same way; without it `helm version` says "main".
  const ldflags = `-s -w -X helm.sh/helm/v4/internal/version.version=${HELM_VERSION}`;
  const parallel = process.env.KUBE_TIDY_GO_PARALLEL ?? '2';
  runGo(
    ['install', '-p', parallel, '-trimpath', '-ldflags', ldflags, `helm.sh/helm/v4/cmd/helm@${HELM_VERSION}`],
    helmBinDir(),
    (m) => console.log(`[helm:build] ${m}`),
    {
      GOBIN: helmBinDir(),
      GOFLAGS: '',
    },
  );
  if (!existsSync(helmBin())) throw new Error(`go install finished but ${helmBin()} is missing`);
  const seconds = Math.round((Date.now() - started) / 1000);
  writeFileSync(helmStamp(), JSON.stringify({ HELM_VERSION, seconds, builtAt: new Date().toISOString() }) + '\n');
  console.log(`[helm:build] done in ${seconds} s: ${helmBin()}`);
  return helmBin();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(`[helm:build] ${buildHelm()}`);
  } catch (error) {
    console.error(`[helm:build] ${(error as Error).message}`);
    process.exit(1);
  }
}
