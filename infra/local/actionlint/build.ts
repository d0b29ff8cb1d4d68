// Builds actionlint (the GitHub Actions workflow linter) from its Go module into a per-version
// cache outside the work tree, as infra/helm/build.ts does for Helm: `go install pkg@version`
// resolves actionlint's own go.mod and go.sum (verified against the checksum database), so no
// wrapper module is needed. The stamp is written last: a build cut off half way is never taken
// for a finished one. test/unit/release/workflows.test.ts runs it on .github/workflows.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runGo } from '../go-run.js';
import { cacheRoot } from '../versions.js';

// Newest tag on the Go module proxy (github.com/rhysd/actionlint/@v/list); its go.mod says
// go 1.25.0, so Go 1.26 builds it without a toolchain switch.
export const ACTIONLINT_VERSION = 'v1.7.12';

const dir = (): string => join(cacheRoot(), 'actionlint', ACTIONLINT_VERSION);
export const actionlintBin = (): string => join(dir(), 'bin', 'actionlint');
const stamp = (): string => join(dir(), 'complete.stamp');

export function buildActionlint(): string {
  if (existsSync(actionlintBin()) && existsSync(stamp())) return actionlintBin();
  mkdirSync(join(dir(), 'bin'), { recursive: true });
  const started = Date.now();
  // actionlint's release builds set its version this way; without it `-version` says "(devel)".
  const ldflags = `-s -w -X github.com/rhysd/actionlint.version=${ACTIONLINT_VERSION}`;
  runGo(
    [
      'install',
      '-p',
      process.env.KUBE_TIDY_GO_PARALLEL ?? '1',
      '-trimpath',
      '-ldflags',
      ldflags,
      `github.com/rhysd/actionlint/cmd/actionlint@${ACTIONLINT_VERSION}`,
    ],
    dir(),
    (m) => console.log(`[actionlint:build] ${m}`),
    { GOBIN: join(dir(), 'bin'), GOFLAGS: '' },
  );
  if (!existsSync(actionlintBin())) throw new Error(`go install finished but ${actionlintBin()} is missing`);
  const seconds = Math.round((Date.now() - started) / 1000);
  writeFileSync(stamp(), JSON.stringify({ ACTIONLINT_VERSION, seconds, builtAt: new Date().toISOString() }) + '\n');
  console.log(`[actionlint:build] done in ${seconds} s: ${actionlintBin()}`);
  return actionlintBin();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    buildActionlint();
  } catch (error) {
    console.error(`[actionlint:build] ${(error as Error).message}`);
    process.exit(1);
  }
}
