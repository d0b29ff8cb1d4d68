// The npm package's figures (issue 46): the tarball's size packed and unpacked, how long
// `npm install --prefix` of it takes into an empty folder (nothing to fetch: it has no
// dependencies, which is counted too), and the installed CLI's cold start on Node 22, spawn to
// exit, for `--help` and `policy check`: the first start of a fresh install (Node's compile
// cache empty) and the steady one (the cache the first start wrote). Compared with the CLI run
// from the tree through tsx, as `npx kube-tidy` ran before the package was bundled.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installPacked, packPackage } from '../../infra/package/pack.js';
import { spread } from './stats.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUNS = Number(process.env.PACKAGE_RUNS ?? 15);
const POLICY = `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: failed
    pluginConfig: [{name: RemoveFailedPods, args: {minPodLifetimeSeconds: 3600}}]
    plugins: {deschedule: {enabled: [RemoveFailedPods]}}
`;

/** Milliseconds from spawn to exit; a non-zero exit stops the benchmark. */
function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'], cwd: ROOT });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${String(r.stderr)}`);
  return ms;
}

export async function runPackageBench(): Promise<object> {
  const work = mkdtempSync(join(tmpdir(), 'kube-tidy-bench-package-'));
  const policy = join(work, 'policy.yaml');
  writeFileSync(policy, POLICY);
  const packed = await packPackage(work);
  const installs: number[] = [];
  let installed;
  for (let i = 0; i < 3; i++) {
    const prefix = mkdtempSync(join(work, 'prefix-'));
    const started = performance.now();
    installed = await installPacked(packed.tarball, prefix);
    installs.push(performance.now() - started);
  }
  const cache = join(work, 'compile-cache');
  const env = { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, NODE_COMPILE_CACHE: cache };
  const first = { help: [] as number[], check: [] as number[] };
  const steady = { help: [] as number[], check: [] as number[] };
  const tsx = { help: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    rmSync(cache, { recursive: true, force: true });
    first.help.push(timed(installed!.bin, ['--help'], env));
    steady.help.push(timed(installed!.bin, ['--help'], env));
    rmSync(cache, { recursive: true, force: true });
    first.check.push(timed(installed!.bin, ['policy', 'check', policy], env));
    steady.check.push(timed(installed!.bin, ['policy', 'check', policy], env));
    tsx.help.push(timed(process.execPath, ['--import', 'tsx', join(ROOT, 'shared/hosts/cli/main.ts'), '--help'], { PATH: env.PATH }));
  }
  rmSync(work, { recursive: true, force: true });
  return {
    node: process.version,
    packedKiB: Math.round(packed.packedBytes / 1024),
    unpackedKiB: Math.round(packed.unpackedBytes / 1024),
    files: packed.files.length,
    dependencies: installed!.dependencies.length,
    installedKiB: Math.round(installed!.bytes / 1024),
    installMs: spread(installs, 0),
    helpFirstMs: spread(first.help, 0),
    helpSteadyMs: spread(steady.help, 0),
    policyCheckFirstMs: spread(first.check, 0),
    policyCheckSteadyMs: spread(steady.check, 0),
    helpFromTreeTsxMs: spread(tsx.help, 0),
  };
}
