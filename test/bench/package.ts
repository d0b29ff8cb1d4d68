// The npm package's figures (issue 46): the tarball's size packed and unpacked, how long
// `npm install --prefix` of it takes into an empty folder (nothing to fetch: it has no
// dependencies, which is counted too), and the installed CLI's cold start on Node 22, spawn to
// exit (wall time, and CPU time, which the machine's other work does not stretch), for
// `--help` and `policy check`: the first start of a fresh install (Node's compile cache empty)
// and the steady one (the cache the first start wrote). Compared with the CLI run
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

/** CPU milliseconds (user + system) of each start, as GNU time reports them: unlike wall time, not stretched by the other work on a shared machine. */
const cpu: Record<string, number[]> = {};

/**
 * Milliseconds from spawn to exit, under GNU time (/usr/bin/time, its CPU figure, 10 ms
 * resolution, goes to `cpu[label]`); a non-zero exit stops the benchmark.
 */
function timed(label: string, cmd: string, args: string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'cpu %U %S', cmd, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'], cwd: ROOT });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${String(r.stderr)}`);
  const m = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(String(r.stderr));
  if (m) (cpu[label] ??= []).push((Number(m[1]) + Number(m[2])) * 1000);
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
    first.help.push(timed('helpFirst', installed!.bin, ['--help'], env));
    steady.help.push(timed('helpSteady', installed!.bin, ['--help'], env));
    rmSync(cache, { recursive: true, force: true });
    first.check.push(timed('policyCheckFirst', installed!.bin, ['policy', 'check', policy], env));
    steady.check.push(timed('policyCheckSteady', installed!.bin, ['policy', 'check', policy], env));
    tsx.help.push(timed('helpFromTreeTsx', process.execPath, ['--import', 'tsx', join(ROOT, 'shared/hosts/cli/main.ts'), '--help'], { PATH: env.PATH }));
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
    ...Object.fromEntries(Object.entries(cpu).map(([k, v]) => [`${k}CpuMs`, spread(v, 0)])),
  };
}
