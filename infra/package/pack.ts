// The npm package as a user gets it: the CLI bundled (infra/bundle/cli.ts), `npm pack` of the
// tree (package.json's "files" decides what goes in), and `npm install --prefix` of the tarball
// into an empty folder. The package test (test/integration/package/) and its benchmark
// (`npm run bench package`) both go through here, so what they check and measure is the same.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../declaration/declaration.js';
import { bundleCli } from '../bundle/cli.js';

const run = promisify(execFile);

/** npm and node of the running Node first on PATH: the package is installed and run with the same Node. */
const npmEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
  npm_config_update_notifier: 'false',
});

export interface Packed {
  tarball: string;
  /** The tarball's size. */
  packedBytes: number;
  /** What it unpacks to, as npm reports it. */
  unpackedBytes: number;
  /** Paths in the tarball, under package/. */
  files: string[];
}

/**
 * Bundles the CLI, then packs the tree into `dest`. `--ignore-scripts`: the bundle was just
 * built, and "prepare" (npm runs it on pack) would add a type-check build the package does not ship.
 */
export async function packPackage(dest: string): Promise<Packed> {
  await bundleCli();
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dest], {
    cwd: REPO_ROOT,
    env: npmEnv(),
    maxBuffer: 16 << 20,
  });
  const [info] = JSON.parse(stdout) as { filename: string; size: number; unpackedSize: number; files: { path: string }[] }[];
  return { tarball: join(dest, info!.filename), packedBytes: info!.size, unpackedBytes: info!.unpackedSize, files: info!.files.map((f) => f.path).sort() };
}

export interface Installed {
  /** The installed program: node_modules/.bin/kube-tidy, npm's link to the package's bin. */
  bin: string;
  /** Every package the install added besides kube-tidy itself (from the prefix's lock file). */
  dependencies: string[];
  /** Bytes under the prefix's node_modules. */
  bytes: number;
}

/** `npm install --prefix <prefix> <tarball>`, as a user's CI would add the package. */
export async function installPacked(tarball: string, prefix: string): Promise<Installed> {
  await run('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', tarball], { cwd: prefix, env: npmEnv(), maxBuffer: 16 << 20 });
  const lock = JSON.parse(readFileSync(join(prefix, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  const dependencies = Object.keys(lock.packages).filter((p) => p !== '' && p !== 'node_modules/kube-tidy');
  return { bin: join(prefix, 'node_modules', '.bin', 'kube-tidy'), dependencies, bytes: treeBytes(join(prefix, 'node_modules')) };
}

function treeBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) total += statSync(join(e.parentPath, e.name)).size;
  return total;
}
