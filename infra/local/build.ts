// Builds the local control plane (etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler, kubectl, kwok) from the Go module proxy into a per-version cache outside
// the work tree. Does nothing when every binary and the completion stamp are present.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runGo } from './go-run.js';
import { BINARIES, ETCD_VERSION, K8S_VERSION, KWOK_VERSION, binDir, binPath, stampPath, type Binary } from './versions.js';

const goDir = join(dirname(fileURLToPath(import.meta.url)), 'go');
const started = Date.now();

function log(message: string): void {
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(`[controlplane:build +${seconds}s] ${message}`);
}

// -p 2 (in the callers' arguments) matches CI's two cores.
const go = (args: string[], cwd: string, extraEnv: Record<string, string> = {}): void => runGo(args, cwd, log, extraEnv);

function k8sLdflags(): string {
  const [major, minor] = K8S_VERSION.slice(1).split('.');
  const vars = {
    gitVersion: K8S_VERSION,
    gitMajor: major ?? '',
    gitMinor: minor ?? '',
    gitTreeState: 'clean',
    buildDate: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
  // component-base serves /version and `kubectl version`; client-go keeps its own copy
  // that ends up in the User-Agent, so set both.
  const pkgs = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'];
  const x = pkgs.flatMap((pkg) => Object.entries(vars).map(([k, v]) => `-X ${pkg}.${k}=${v}`));
  return ['-s', '-w', ...x].join(' ');
}

const missing = (names: readonly Binary[]): boolean => names.some((n) => !existsSync(binPath(n)));

function main(): void {
  if (existsSync(stampPath()) && !missing(BINARIES)) {
    console.log(`[controlplane:build] up to date: ${binDir()}`);
    return;
  }
  rmSync(stampPath(), { force: true });
  mkdirSync(binDir(), { recursive: true });
  log(`building Kubernetes ${K8S_VERSION}, etcd ${ETCD_VERSION}, kwok ${KWOK_VERSION} into ${binDir()}`);

  if (missing(['etcd'])) {
    go(['build', '-p', '2', '-trimpath', '-ldflags', '-s -w', '-o', binPath('etcd'), '.'], join(goDir, 'etcd'), {
      GOFLAGS: '-mod=readonly',
    });
  }
  if (missing(['kwok'])) {
    // `go install pkg@version` resolves kwok's own go.mod; -mod must not be set for it.
    go(['install', '-p', '2', '-trimpath', '-ldflags', '-s -w', `sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}`], goDir, {
      GOBIN: binDir(),
      GOFLAGS: '',
    });
  }
  const k8s: Binary[] = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubectl'];
  if (missing(k8s)) {
    // One `go build` for all four so shared packages are compiled once.
    const pkgs = k8s.map((name) => `k8s.io/kubernetes/cmd/${name}`);
    go(['build', '-p', '2', '-trimpath', '-ldflags', k8sLdflags(), '-o', binDir() + '/', ...pkgs], join(goDir, 'k8s'), {
      GOFLAGS: '-mod=readonly',
    });
  }
  if (missing(BINARIES)) {
    throw new Error(`build finished but binaries are missing in ${binDir()}`);
  }
  writeFileSync(stampPath(), JSON.stringify({ K8S_VERSION, ETCD_VERSION, KWOK_VERSION, builtAt: new Date().toISOString() }) + '\n');
  log(`done in ${((Date.now() - started) / 1000).toFixed(0)}s`);
}

try {
  main();
} catch (error) {
  console.error(`[controlplane:build] ${(error as Error).message}`);
  process.exit(1);
}
